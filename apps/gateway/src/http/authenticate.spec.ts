import type { Request } from 'express';
import { identityV1 } from '@glp/proto';
import type { AuthResult } from '../auth/token-authenticator';
import { authenticate, type AuthDeps } from './authenticate';
import { HttpError } from './errors';

const req = (headers: Record<string, string> = {}, query: Record<string, unknown> = {}, body: Record<string, unknown> = {}) =>
  ({ get: (h: string) => headers[h.toLowerCase()], query, body }) as unknown as Request;
const alice = identityV1.User.fromPartial({ id: 7, username: 'alice', isAdmin: false, state: 'active' });
const users = async (identifier: string) => (identifier === '7' || identifier.toLowerCase() === 'alice' ? alice : undefined);
const authWith = (result: AuthResult): AuthDeps => ({ authenticator: { authenticate: jest.fn(async () => result) }, findUser: jest.fn(users) });
const user = identityV1.User.fromPartial({ id: 5, username: 'u' });
const active = (scopes: string[], admin = false): AuthResult => ({ ok: true, user, actor: { kind: 'user', id: 5, username: 'u', admin, scopes } });

async function failure(p: Promise<unknown>): Promise<HttpError> {
  try {
    await p;
  } catch (err) {
    return err as HttpError;
  }
  throw new Error('expected a failure');
}

describe('authenticate', () => {
  it('lets anonymous callers through public routes only', async () => {
    expect((await authenticate(req(), { method: 'GET', access: 'public' }, authWith(active(['api'])))).actor.kind).toBe('anonymous');
    const e = await failure(authenticate(req(), { method: 'POST', access: 'user' }, authWith(active(['api']))));
    expect([e.status, e.body]).toEqual([401, { message: '401 Unauthorized' }]);
  });

  it('answers a bad token with 401 even on a public route', async () => {
    const e = await failure(authenticate(req({ 'private-token': 'x' }), { method: 'GET', access: 'public' }, authWith({ ok: false, reason: 'not_found' })));
    expect([e.status, e.body]).toEqual([401, { message: '401 Unauthorized' }]);
  });

  it('uses the OAuth-style body for expired and revoked tokens, 403 for blocked users', async () => {
    const expired = await failure(authenticate(req({ authorization: 'Bearer x' }), { method: 'GET', access: 'public' }, authWith({ ok: false, reason: 'expired' })));
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' });
    expect(expired.headers['WWW-Authenticate']).toMatch(/^Bearer realm="", error="invalid_token"/);
    const revoked = await failure(authenticate(req({}, { private_token: 'x' }), { method: 'GET', access: 'public' }, authWith({ ok: false, reason: 'revoked' })));
    expect(revoked.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    const blocked = await failure(authenticate(req({ 'private-token': 'x' }), { method: 'GET', access: 'public' }, authWith({ ok: false, reason: 'user_blocked' })));
    expect([blocked.status, blocked.body]).toEqual([403, { message: '403 Forbidden - Your account has been blocked.' }]);
  });

  it('checks scopes: read_api reads, api writes, read_user only where the route allows it', async () => {
    const token = req({ 'private-token': 'x' });
    await expect(authenticate(token, { method: 'GET', access: 'user' }, authWith(active(['read_api'])))).resolves.toMatchObject({ actor: { id: 5 } });
    const write = await failure(authenticate(token, { method: 'POST', access: 'user' }, authWith(active(['read_api']))));
    expect([write.status, write.body]).toEqual([403, { error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'api' }]);
    await expect(authenticate(token, { method: 'GET', access: 'user', scopes: ['read_user'] }, authWith(active(['read_user'])))).resolves.toBeDefined();
    expect((await failure(authenticate(token, { method: 'GET', access: 'user' }, authWith(active(['read_user']))))).status).toBe(403);
  });

  it('requires an administrator on admin routes', async () => {
    const token = req({ 'private-token': 'x' });
    const e = await failure(authenticate(token, { method: 'POST', access: 'admin' }, authWith(active(['api']))));
    expect([e.status, e.body]).toEqual([403, { message: '403 Forbidden' }]);
    await expect(authenticate(token, { method: 'POST', access: 'admin' }, authWith(active(['api'], true)))).resolves.toBeDefined();
  });

  describe('Sudo', () => {
    const admin = (scopes: string[]) => authWith(active(scopes, true));
    const token = (more: Record<string, string> = {}) => ({ 'private-token': 'x', ...more });

    it('lets an administrator whose token has the sudo scope act as a user named by header or param', async () => {
      for (const r of [req(token({ sudo: 'alice' })), req(token(), { sudo: '7' }), req(token(), {}, { sudo: 'ALICE' })]) {
        const { actor, user } = await authenticate(r, { method: 'GET', access: 'user' }, admin(['api', 'sudo']));
        expect(actor).toEqual({ kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api', 'sudo'], external: false });
        expect(user?.username).toBe('alice');
      }
    });

    it('checks admin routes against the user acted as', async () => {
      const e = await failure(authenticate(req(token({ sudo: 'alice' })), { method: 'POST', access: 'admin' }, admin(['api', 'sudo'])));
      expect([e.status, e.body]).toEqual([403, { message: '403 Forbidden' }]);
    });

    it("answers GitLab's errors: non-admin 403, no sudo scope 403 insufficient_scope, unknown user 404, no token 401", async () => {
      const notAdmin = await failure(authenticate(req(token({ sudo: 'alice' })), { method: 'GET', access: 'user' }, authWith(active(['api', 'sudo']))));
      expect([notAdmin.status, notAdmin.body]).toEqual([403, { message: '403 Forbidden - Must be admin to use sudo' }]);
      const noScope = await failure(authenticate(req(token({ sudo: 'alice' })), { method: 'GET', access: 'user' }, admin(['api'])));
      expect([noScope.status, noScope.body]).toEqual([403, {
        error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'sudo',
      }]);
      const unknown = await failure(authenticate(req(token({ sudo: 'nobody' })), { method: 'GET', access: 'user' }, admin(['api', 'sudo'])));
      expect([unknown.status, unknown.body]).toEqual([404, { message: "404 User with ID or username 'nobody' Not Found" }]);
      const anonymous = await failure(authenticate(req({ sudo: 'alice' }), { method: 'GET', access: 'public' }, admin(['api', 'sudo'])));
      expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
    });

    it('still checks the route scope of the token first', async () => {
      const e = await failure(authenticate(req(token({ sudo: 'alice' })), { method: 'POST', access: 'user' }, admin(['read_api', 'sudo'])));
      expect(e.body).toMatchObject({ error: 'insufficient_scope', scope: 'api' });
    });
  });
});
