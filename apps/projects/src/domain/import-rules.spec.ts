import { applyMirrorSettings, importUrlBlocked, mirrorSettingsErrors, NO_MIRROR, planImportEdit } from './import-rules';

describe('import rules', () => {
  it('applies only the mirror settings a request set', () => {
    const on = applyMirrorSettings(NO_MIRROR, { mirror: true, mirrorUserId: 3 });
    expect(on).toEqual({ ...NO_MIRROR, mirror: true, mirrorUserId: 3 });
    expect(applyMirrorSettings(on, { mirrorTriggerBuilds: true })).toEqual({ ...on, mirrorTriggerBuilds: true });
    expect(applyMirrorSettings(on, undefined)).toBe(on);
  });

  it('validates mirror_branch_regex when saved: RE2 syntax (no backreference, no lookaround), at most 255 characters', () => {
    const source = { ...NO_MIRROR, mirror: true, mirrorUserId: 1 };
    expect(planImportEdit(source, { mirror: { mirrorBranchRegex: '^(feature|release)/' } }, 5)).toMatchObject({ kind: 'changed' });
    expect(planImportEdit(source, { mirror: { mirrorBranchRegex: '(a)\\1' } }, 5))
      .toEqual({ kind: 'invalid', errors: { 'project_setting.mirror_branch_regex': ['not valid RE2 syntax: invalid escape sequence: \\1'] } });
    expect(mirrorSettingsErrors({ mirrorBranchRegex: '^(?=x)' })).toEqual({ 'project_setting.mirror_branch_regex': ['not valid RE2 syntax: invalid perl operator: (?='] });
    expect(mirrorSettingsErrors({ mirrorBranchRegex: 'a'.repeat(256) })).toEqual({ 'project_setting.mirror_branch_regex': ['is too long (maximum is 255 characters)'] });
    expect(mirrorSettingsErrors({ mirrorBranchRegex: '^(a+)+$' })).toBeUndefined(); // RE2 runs it in linear time
    expect(mirrorSettingsErrors({ mirror: true })).toBeUndefined();
  });

  it('words a blocked URL as GitLab’s model error', () => {
    expect(importUrlBlocked('Requests to localhost are not allowed')).toEqual({ import_url: ['is blocked: Requests to localhost are not allowed'] });
  });

  it('plans an edit of the import source: blank URL for a new mirror, the editor as mirror user, what changed', () => {
    expect(planImportEdit(undefined, {}, 5)).toEqual({ kind: 'unchanged' });
    expect(planImportEdit(undefined, { mirror: { mirror: true } }, 5)).toEqual({ kind: 'invalid', errors: { import_url: ["can't be blank"] } });
    // Seen by the route fuzzer (a 500): mirror settings without an import URL and without turning mirroring on change nothing.
    expect(planImportEdit(undefined, { mirror: { mirrorBranchRegex: 'x' } }, 5)).toEqual({ kind: 'unchanged' });
    expect(planImportEdit(undefined, { url: 'https://x/y.git', mirror: { mirror: true } }, 5))
      .toEqual({ kind: 'changed', url: 'https://x/y.git', mirror: { ...NO_MIRROR, mirror: true, mirrorUserId: 5 }, changed: ['import_url', 'mirror'] });
    const on = { ...NO_MIRROR, mirror: true, mirrorUserId: 3 };
    expect(planImportEdit(on, { mirror: { mirror: true } }, 5)).toEqual({ kind: 'unchanged' });
    expect(planImportEdit(on, { mirror: { mirror: false } }, 5)).toMatchObject({ kind: 'changed', changed: ['mirror'], mirror: { mirror: false } });
  });
});
