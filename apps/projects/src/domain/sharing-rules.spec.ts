import type { Actor } from '@glp/service-kit';
import { importedLevel, mayShareAt, memberErrorSentence, SHARE_FAILURES, shareAccess, shareFailure } from './sharing-rules';
import { canReadProject, effectiveAccess, type ProjectAccessFacts } from './visibility';

const user = (admin = false): Actor => ({ kind: 'user', id: 7, username: 'u', admin, scopes: ['api'] });

describe('shareAccess', () => {
  it('is the lower of the group level and the link, the highest over links, 0 without membership', () => {
    const links = [{ groupId: 1, groupAccess: 20 }, { groupId: 2, groupAccess: 40 }];
    expect(shareAccess(links, new Map([[1, 50]]))).toBe(20);
    expect(shareAccess(links, new Map([[1, 50], [2, 30]]))).toBe(30);
    expect(shareAccess(links, new Map([[3, 50]]))).toBe(0);
    expect(shareAccess([], new Map([[1, 50]]))).toBe(0);
  });

  it('gives read access to a private project and counts in the effective level', () => {
    const facts: ProjectAccessFacts = { visibility: 'private', memberAccess: 0, namespaceOwnerId: null, groupAccess: 0, shareAccess: 20, pendingDelete: false };
    expect(canReadProject(user(), facts)).toBe(true);
    expect(effectiveAccess(user(), facts)).toBe(20);
    expect(effectiveAccess(user(), { ...facts, memberAccess: 30 })).toBe(30);
    expect(canReadProject(user(), { ...facts, shareAccess: 0 })).toBe(false);
  });
});

describe('shareFailure', () => {
  it("refuses a group already shared, then the project's own group or an ancestor", () => {
    expect(shareFailure(5, [1, 2], [5])).toBe(SHARE_FAILURES.alreadyShared);
    expect(shareFailure(2, [1, 2], [])).toBe('Project cannot be shared with the group it is in or one of its ancestors.');
    expect(shareFailure(9, [1, 2], [5])).toBeUndefined();
  });
});

describe('mayShareAt', () => {
  it('needs Owner (or administrator) to share at Owner', () => {
    expect(mayShareAt(user(), 40, 40)).toBe(true);
    expect(mayShareAt(user(), 40, 50)).toBe(false);
    expect(mayShareAt(user(), 50, 50)).toBe(true);
    expect(mayShareAt(user(true), 0, 50)).toBe(true);
  });
});

describe('importedLevel', () => {
  it("caps at the importer's level, Owners become Maintainers for a Maintainer", () => {
    expect(importedLevel(30, { admin: false, access: 40 })).toBe(30);
    expect(importedLevel(50, { admin: false, access: 40 })).toBe(40);
    expect(importedLevel(50, { admin: false, access: 50 })).toBe(50);
    expect(importedLevel(40, { admin: false, access: 30 })).toBe(30);
    expect(importedLevel(50, { admin: true, access: 0 })).toBe(50);
  });
});

describe('memberErrorSentence', () => {
  it("joins full messages as Rails' to_sentence", () => {
    expect(memberErrorSentence({ access_level: ['should be greater than or equal to Developer inherited membership from group Team'] }))
      .toBe('Access level should be greater than or equal to Developer inherited membership from group Team');
    expect(memberErrorSentence({ access_level: ['a'], expires_at: ['b'] })).toBe('Access level a and Expires at b');
  });
});
