import { memberErrors, memberUpdateRefusal, normalizeExpiry, wouldOrphanGroup } from './member-rules';

describe('member rules', () => {
  const today = '2026-06-01';

  it('accepts a known level with no or a future expiry', () => {
    expect(memberErrors({ accessLevel: 30, expiresAt: null }, { today })).toEqual({});
    expect(memberErrors({ accessLevel: 50, expiresAt: '2026-06-02' }, { today })).toEqual({});
  });

  it('refuses unknown levels, levels below an inherited one, and past expiries', () => {
    expect(memberErrors({ accessLevel: 35, expiresAt: null }, { today }).access_level).toEqual(['is not included in the list']);
    expect(memberErrors({ accessLevel: 20, expiresAt: null }, { today, inherited: { level: 40, groupName: 'Top' } }).access_level).toEqual([
      'should be greater than or equal to Maintainer inherited membership from group Top',
    ]);
    expect(memberErrors({ accessLevel: 40, expiresAt: null }, { today, inherited: { level: 40, groupName: 'Top' } })).toEqual({});
    expect(memberErrors({ accessLevel: 30, expiresAt: today }, { today }).expires_at).toEqual(['cannot be a date in the past']);
  });

  it('never leaves a top-level group without an Owner', () => {
    expect(wouldOrphanGroup({ currentLevel: 50, newLevel: 40 }, { isTopLevel: true, owners: 1 })).toBe(true);
    expect(wouldOrphanGroup({ currentLevel: 50, newLevel: 0 }, { isTopLevel: true, owners: 2 })).toBe(false);
    expect(wouldOrphanGroup({ currentLevel: 50, newLevel: 0 }, { isTopLevel: false, owners: 1 })).toBe(false);
    expect(wouldOrphanGroup({ currentLevel: 40, newLevel: 0 }, { isTopLevel: true, owners: 1 })).toBe(false);
  });

  it('refuses a member update as GitLab: the member is looked up before the caller is authorized', () => {
    // Not a member: 404 whatever the caller's role (lib/api/members.rb `find_by!` before `authorize_update_source_member!`).
    expect(memberUpdateRefusal(false, undefined)).toBe('not_found');
    expect(memberUpdateRefusal(true, undefined)).toBe('not_found');
    // A member: 403 for a caller who may not administer members, allowed for one who may.
    expect(memberUpdateRefusal(false, { level: 30 })).toBe('forbidden');
    expect(memberUpdateRefusal(true, { level: 50 })).toBeUndefined();
  });

  it('reads "" and "none" as no expiry', () => {
    expect(normalizeExpiry('')).toBeNull();
    expect(normalizeExpiry('none')).toBeNull();
    expect(normalizeExpiry('2030-01-01')).toBe('2030-01-01');
  });
});
