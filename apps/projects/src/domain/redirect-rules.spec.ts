import { isCurrentPath, projectFullPath, reachedByOldPath, redirectLeftBy } from './redirect-rules';

describe('redirect routes of renamed or moved projects', () => {
  it('tells a project\'s current full path, whatever the case, from any other', () => {
    expect(isCurrentPath('Group/Sub/App', 'group/sub/app')).toBe(true);
    expect(isCurrentPath('group/sub/app', 'group/sub/app')).toBe(true);
    expect(isCurrentPath('group/sub/old', 'group/sub/app')).toBe(false);
    expect(isCurrentPath('group/app', 'group/sub/app')).toBe(false);
  });

  it('joins a namespace full path and a project path', () => {
    expect(projectFullPath('group/sub', 'app')).toBe('group/sub/app');
  });

  it('leaves the old full path behind when the path changes', () => {
    expect(redirectLeftBy('alice/old', 'alice/new')).toBe('alice/old');
    expect(redirectLeftBy('alice/app', 'team/app')).toBe('alice/app');
    expect(redirectLeftBy('Team/App', 'crew/App')).toBe('Team/App'); // kept as it was spelled
  });

  it('leaves nothing when the path is unchanged or only its letter case changed', () => {
    expect(redirectLeftBy('alice/app', 'alice/app')).toBeNull();
    expect(redirectLeftBy('alice/app', 'Alice/APP')).toBeNull();
  });

  it('is GitLab’s project_moved?: a full path that is not the project’s own, ignoring case', () => {
    expect(reachedByOldPath('alice/old', 'alice/new')).toBe(true);
    expect(reachedByOldPath('old-group/sub/app', 'new-group/sub/app')).toBe(true);
    expect(reachedByOldPath('alice/app', 'alice/app')).toBe(false);
    expect(reachedByOldPath('ALICE/App', 'alice/app')).toBe(false);
    expect(reachedByOldPath('42', 'alice/app')).toBe(false); // a numeric id
  });
});
