import { decideGroupDeletion, restoreRefusal } from './group-deletion-rules';

describe('decideGroupDeletion (GitLab 18 delayed group deletion)', () => {
  const marked = { marked: true, fullPath: 'top/sub-deletion_scheduled-7' };
  const live = { marked: false, fullPath: 'top/sub' };

  it('marks a group not marked yet, and refuses to mark it twice', () => {
    expect(decideGroupDeletion(live, { permanentlyRemove: false, fullPath: '' })).toEqual({ kind: 'mark' });
    expect(decideGroupDeletion(marked, { permanentlyRemove: false, fullPath: '' }))
      .toEqual({ kind: 'refuse', message: 'Group has been already marked for deletion' });
  });

  it('removes a marked group at once only with its exact current full path', () => {
    expect(decideGroupDeletion(marked, { permanentlyRemove: true, fullPath: 'top/sub-deletion_scheduled-7' })).toEqual({ kind: 'delete' });
    for (const fullPath of ['', 'top/sub', 'TOP/sub-deletion_scheduled-7']) {
      expect(decideGroupDeletion(marked, { permanentlyRemove: true, fullPath }))
        .toEqual({ kind: 'refuse', message: '`full_path` is incorrect. You must enter the complete path for the group.' });
    }
  });

  it('refuses permanently_remove on a group not marked, whatever the path', () => {
    expect(decideGroupDeletion(live, { permanentlyRemove: true, fullPath: 'top/sub' }))
      .toEqual({ kind: 'refuse', message: 'Group must be marked for deletion first.' });
  });

  it('restores only a group marked itself', () => {
    expect(restoreRefusal({ marked: true })).toBeUndefined();
    expect(restoreRefusal({ marked: false })).toBe('Group has not been marked for deletion');
  });
});
