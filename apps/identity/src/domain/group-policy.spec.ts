import type { Actor } from '@glp/service-kit';
import { canAdminGroup, canCreateSubgroup, canCreateTopLevelGroup, canReadGroup, canReadNamespaceViaMembership } from './group-policy';

const user = (over: Partial<Actor> = {}): Actor => ({ kind: 'user', id: 7, username: 'u', admin: false, scopes: ['api'], ...over });
const anon: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const facts = (visibility: 'private' | 'internal' | 'public', callerAccess = 0, callerInDescendant = false) => ({ visibility, callerAccess, callerInDescendant });

describe('group policy', () => {
  it('reads public groups for all, internal for signed-in non-external users, private for members only', () => {
    expect(canReadGroup({ actor: anon, external: false }, facts('public'))).toBe(true);
    expect(canReadGroup({ actor: anon, external: false }, facts('internal'))).toBe(false);
    expect(canReadGroup({ actor: user(), external: false }, facts('internal'))).toBe(true);
    expect(canReadGroup({ actor: user(), external: true }, facts('internal'))).toBe(false);
    expect(canReadGroup({ actor: user(), external: false }, facts('private'))).toBe(false);
    expect(canReadGroup({ actor: user(), external: false }, facts('private', 10))).toBe(true);
    expect(canReadGroup({ actor: user(), external: false }, facts('private', 0, true))).toBe(true);
    expect(canReadGroup({ actor: user({ admin: true }), external: false }, facts('private'))).toBe(true);
  });

  it('leaves administration to owners and subgroups to maintainers', () => {
    expect(canAdminGroup({ actor: user(), external: false }, facts('public', 40))).toBe(false);
    expect(canAdminGroup({ actor: user(), external: false }, facts('public', 50))).toBe(true);
    expect(canCreateSubgroup({ actor: user(), external: false }, facts('public', 30))).toBe(false);
    expect(canCreateSubgroup({ actor: user(), external: false }, facts('public', 40))).toBe(true);
  });

  it('lets only users allowed to create groups, never external ones, create top-level groups', () => {
    expect(canCreateTopLevelGroup({ actor: user(), external: false }, true)).toBe(true);
    expect(canCreateTopLevelGroup({ actor: user(), external: false }, false)).toBe(false);
    expect(canCreateTopLevelGroup({ actor: user(), external: true }, true)).toBe(false);
    expect(canCreateTopLevelGroup({ actor: anon, external: false }, true)).toBe(false);
  });

  it('shows namespaces through membership only', () => {
    expect(canReadNamespaceViaMembership({ actor: user(), external: false }, { kind: 'user', ownerId: 7 })).toBe(true);
    expect(canReadNamespaceViaMembership({ actor: user(), external: false }, { kind: 'user', ownerId: 8 })).toBe(false);
    expect(canReadNamespaceViaMembership({ actor: user(), external: false }, { kind: 'group', ownerId: null }, facts('public'))).toBe(false);
    expect(canReadNamespaceViaMembership({ actor: user(), external: false }, { kind: 'group', ownerId: null }, facts('private', 10))).toBe(true);
  });
});
