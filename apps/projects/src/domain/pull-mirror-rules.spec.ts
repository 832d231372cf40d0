import { NO_MIRROR } from './import-rules';
import { exclusiveBranchFilters, planPullMirrorEdit } from './pull-mirror-rules';

const URL_ = 'https://example.com/up.git';

describe('pull mirror rules (PUT /projects/:id/mirror/pull)', () => {
  it('keeps the two branch filters exclusive, as GitLab’s PullMirrors::Attributes', () => {
    expect(exclusiveBranchFilters({ mirrorBranchRegex: '^main$', onlyMirrorProtectedBranches: true })).toEqual({ mirrorBranchRegex: '^main$', onlyMirrorProtectedBranches: false });
    expect(exclusiveBranchFilters({ onlyMirrorProtectedBranches: true })).toEqual({ onlyMirrorProtectedBranches: true, mirrorBranchRegex: '' });
    expect(exclusiveBranchFilters(undefined)).toEqual({});
  });

  it('turns mirroring on with the URL and credentials sent; the editor becomes the mirror user', () => {
    const plan = planPullMirrorEdit(undefined, { enabled: true, url: URL_, authUser: 'bot', authPassword: 's3cret!', settings: { mirrorOverwritesDivergedBranches: true } }, 7);
    expect(plan).toEqual({
      kind: 'save', url: 'https://bot:s3cret!@example.com/up.git', changed: ['import_url', 'mirror'],
      mirror: { ...NO_MIRROR, mirror: true, mirrorUserId: 7, mirrorOverwritesDivergedBranches: true },
    });
  });

  it('keeps the stored URL and credentials when only settings change; a new password replaces the old one', () => {
    const current = { url: 'https://bot:old@example.com/up.git', mirror: { ...NO_MIRROR, mirror: true, mirrorUserId: 7 } };
    expect(planPullMirrorEdit(current, { settings: { mirrorBranchRegex: '^release/' } }, 7))
      .toEqual({ kind: 'save', url: current.url, changed: ['mirror'], mirror: { ...current.mirror, mirrorBranchRegex: '^release/' } });
    expect(planPullMirrorEdit(current, { authPassword: 'new' }, 7)).toMatchObject({ url: 'https://bot:new@example.com/up.git', changed: ['import_url'] });
    expect(planPullMirrorEdit({ ...current, mirror: { ...current.mirror, mirrorBranchRegex: 'x' } }, { settings: { onlyMirrorProtectedBranches: true } }, 7))
      .toMatchObject({ mirror: { onlyMirrorProtectedBranches: true, mirrorBranchRegex: null } });
    expect(planPullMirrorEdit(current, { enabled: true }, 7)).toEqual({ kind: 'save', url: current.url, changed: [], mirror: current.mirror });
  });

  it('drops the credentials and keeps the URL when mirroring is turned off', () => {
    const current = { url: 'https://bot:pw@example.com/up.git', mirror: { ...NO_MIRROR, mirror: true, mirrorUserId: 7 } };
    expect(planPullMirrorEdit(current, { enabled: false, authPassword: 'ignored' }, 9))
      .toEqual({ kind: 'save', url: URL_, changed: ['import_url', 'mirror'], mirror: { ...current.mirror, mirror: false, mirrorUserId: 9 } });
  });

  it('answers the model’s errors: no URL to mirror, nothing to attach settings to, a regex RE2 refuses', () => {
    expect(planPullMirrorEdit(undefined, { enabled: true }, 1)).toEqual({ kind: 'invalid', errors: { import_url: ["can't be blank"] } });
    expect(planPullMirrorEdit(undefined, { settings: { mirrorTriggerBuilds: true } }, 1)).toEqual({ kind: 'invalid', errors: { url: ['is missing'] } });
    expect(planPullMirrorEdit(undefined, { enabled: false }, 1)).toEqual({ kind: 'invalid', errors: { url: ['is missing'] } });
    expect(planPullMirrorEdit(undefined, { url: URL_, settings: { mirrorBranchRegex: '(' } }, 1))
      .toEqual({ kind: 'invalid', errors: { 'project_setting.mirror_branch_regex': [expect.stringMatching(/^not valid RE2 syntax: /)] } });
  });
});
