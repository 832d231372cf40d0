import type { Actor } from '@glp/service-kit';
import { changesAuthorization, userView } from './user-policy';

const caller = (over: Partial<Actor> = {}): Actor => ({ kind: 'user', id: 1, username: 'a', admin: false, scopes: ['api'], ...over });
const target = (over: Partial<{ id: number; state: string; private_profile: boolean }> = {}) => ({ id: 2, state: 'active', private_profile: false, ...over });

describe('user policy', () => {
  it('chooses the entity GitLab would: admin, self, public, private; hides blocked users from non-admins', () => {
    expect(userView(caller({ admin: true }), target({ state: 'blocked' }))).toBe('admin');
    expect(userView(caller(), target({ id: 1 }))).toBe('self');
    expect(userView(caller(), target())).toBe('public');
    expect(userView(caller(), target({ private_profile: true }))).toBe('private');
    expect(userView(caller(), target({ state: 'blocked' }))).toBeUndefined();
    expect(userView({ kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] }, target())).toBe('public');
  });

  it('knows which changes alter what tokens may do', () => {
    const u = { is_admin: true, external: false, state: 'active', username: 'x' };
    expect(changesAuthorization(u, { ...u })).toBe(false);
    expect(changesAuthorization(u, { ...u, is_admin: false })).toBe(true);
    expect(changesAuthorization(u, { ...u, state: 'blocked' })).toBe(true);
    expect(changesAuthorization(u, { ...u, external: true })).toBe(true);
  });
});
