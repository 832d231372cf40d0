import pino from 'pino';
import type { Redis } from 'ioredis';
import { identityV1 } from '@glp/proto';
import { TokenAuthenticator } from './token-authenticator';

const logger = pino({ level: 'silent' });
const root = identityV1.User.fromPartial({ id: 1, username: 'root', isAdmin: true, state: 'active' });

function fakeRedis(opts: { broken?: boolean } = {}) {
  const store = new Map<string, string>();
  const redis = {
    get: jest.fn(async (k: string) => {
      if (opts.broken) throw new Error('ECONNREFUSED');
      return store.get(k) ?? null;
    }),
    set: jest.fn(async (k: string, v: string, _ex: string, ttl: number) => {
      if (opts.broken) throw new Error('ECONNREFUSED');
      expect(ttl).toBe(30);
      store.set(k, v);
      return 'OK';
    }),
  };
  return { redis: redis as unknown as Redis, store, mock: redis };
}

const identity = (status: identityV1.TokenStatus) => ({
  authenticateToken: jest.fn(async () => identityV1.AuthenticateTokenResponse.fromPartial({ status, user: root, scopes: ['api'] })),
});

describe('TokenAuthenticator', () => {
  it('resolves an active token to an actor and serves repeats from Redis (keyed by digest, not the token)', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const { redis, store } = fakeRedis();
    const auth = new TokenAuthenticator(id, redis, 30, logger);
    const first = await auth.authenticate('glpat-secret-value');
    expect(first).toMatchObject({ ok: true, actor: { kind: 'user', id: 1, username: 'root', admin: true, scopes: ['api'] } });
    const second = await auth.authenticate('glpat-secret-value');
    expect(second).toEqual(first);
    expect(id.authenticateToken).toHaveBeenCalledTimes(1);
    expect([...store.keys()][0]).toMatch(/^glp:auth:[0-9a-f]{64}$/);
    expect([...store.values()][0]).not.toContain('glpat-secret-value');
  });

  it('does not cache unusable tokens, and reports why they fail', async () => {
    for (const [status, reason] of [
      [identityV1.TokenStatus.TOKEN_STATUS_NOT_FOUND, 'not_found'],
      [identityV1.TokenStatus.TOKEN_STATUS_EXPIRED, 'expired'],
      [identityV1.TokenStatus.TOKEN_STATUS_REVOKED, 'revoked'],
      [identityV1.TokenStatus.TOKEN_STATUS_USER_BLOCKED, 'user_blocked'],
    ] as const) {
      const { redis, store } = fakeRedis();
      const auth = new TokenAuthenticator(identity(status), redis, 30, logger);
      expect(await auth.authenticate('t')).toEqual({ ok: false, reason });
      expect(store.size).toBe(0);
    }
  });

  it('keeps working when Redis is down (asks identity every time)', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const auth = new TokenAuthenticator(id, fakeRedis({ broken: true }).redis, 30, logger);
    expect((await auth.authenticate('t')).ok).toBe(true);
    expect((await auth.authenticate('t')).ok).toBe(true);
    expect(id.authenticateToken).toHaveBeenCalledTimes(2);
  });
});
