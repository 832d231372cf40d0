import type { Actor } from '@glp/service-kit';
import { actorForUser, mayCreateForUser } from './project-creator';

const root: Actor = { kind: 'user', id: 1, username: 'root', admin: true, scopes: ['api'] };
const alice = { id: 7, username: 'alice', isAdmin: false, external: false };

describe('creating a project for another user', () => {
  it('is for administrators only', () => {
    expect(mayCreateForUser(root)).toBe(true);
    expect(mayCreateForUser({ ...root, admin: false })).toBe(false);
    expect(mayCreateForUser({ kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] })).toBe(false);
  });

  it('acts as that user, with their own flags, never the caller’s administrator rights', () => {
    expect(actorForUser(root, alice)).toEqual({ kind: 'user', id: 7, username: 'alice', admin: false, external: false, scopes: ['api'] });
    expect(actorForUser(root, { ...alice, external: true })).toMatchObject({ admin: false, external: true });
    expect(actorForUser(root, { ...alice, isAdmin: true })).toMatchObject({ id: 7, admin: true });
  });
});
