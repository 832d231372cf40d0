import { EventEmitter } from 'node:events';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { identityV1 } from '@glp/proto';
import { TokenAuthenticator, type TokenAuthenticatorOptions } from './token-authenticator';

const logger = pino({ level: 'silent' });
const root = identityV1.User.fromPartial({ id: 1, username: 'root', isAdmin: true, state: 'active' });

function fakeRedis(opts: { broken?: boolean; status?: string } = {}) {
  const store = new Map<string, string>();
  const events = new EventEmitter();
  const redis = {
    status: opts.status ?? 'ready',
    on: (event: string, fn: () => void) => events.on(event, fn),
    // The entry and its generation (identity's, not faked here: none).
    get: jest.fn(async (...keys: string[]) => {
      if (opts.broken) throw new Error('ECONNREFUSED');
      return keys.map((k) => store.get(k) ?? null);
    }),
    // AUTH_CACHE_WRITE_SCRIPT: the entry is written while the generation is the one read.
    set: jest.fn(async (_script: string, _n: number, k: string, _gen: string, v: string, ttl: number, generation: string) => {
      if (opts.broken) throw new Error('ECONNREFUSED');
      expect(ttl).toBe(30);
      if ((store.get(_gen) ?? '') !== generation) return 0;
      store.set(k, v);
      return 1;
    }),
  };
  return { redis: { ...redis, mget: redis.get, eval: redis.set } as unknown as Redis, store, mock: redis, events };
}

const identity = (status: identityV1.TokenStatus) => ({
  authenticateToken: jest.fn(async () => identityV1.AuthenticateTokenResponse.fromPartial({ status, user: root, scopes: ['api'] })),
});

type Id = ReturnType<typeof identity>;
const make = (id: Id, redis: Redis | undefined, over: Partial<TokenAuthenticatorOptions> = {}) =>
  new TokenAuthenticator({ identity: id, redis, redisTtlSeconds: 30, localTtlMs: 0, negativeTtlMs: 0, logger, ...over });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('TokenAuthenticator', () => {
  it('resolves an active token to an actor and serves repeats from Redis (keyed by digest, not the token)', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const { redis, store } = fakeRedis();
    const auth = make(id, redis);
    const first = await auth.authenticate('glpat-secret-value');
    expect(first).toMatchObject({ ok: true, actor: { kind: 'user', id: 1, username: 'root', admin: true, scopes: ['api'] } });
    const second = await auth.authenticate('glpat-secret-value');
    expect(second).toEqual(first);
    expect(id.authenticateToken).toHaveBeenCalledTimes(1);
    expect([...store.keys()][0]).toMatch(/^glp:auth:[0-9a-f]{64}$/);
    expect([...store.values()][0]).not.toContain('glpat-secret-value');
  });

  it('renews a shared entry in its last third while identity answers, and serves it meanwhile even if identity is down', async () => {
    const t0 = Date.now();
    let now = t0;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
      const { redis, store } = fakeRedis();
      const auth = make(id, redis);
      await auth.authenticate('glpat-renewed');
      const [key] = [...store.keys()];
      const writtenAt = () => JSON.parse(store.get(key!)!).at as number;
      // Young entry: served from Redis, identity not asked.
      now = t0 + 5_000;
      await auth.authenticate('glpat-renewed');
      expect(id.authenticateToken).toHaveBeenCalledTimes(1);
      // In its last third: served at once, and renewed in the background (one renewal for concurrent look-ups).
      now = t0 + 25_000;
      await Promise.all([auth.authenticate('glpat-renewed'), auth.authenticate('glpat-renewed')]);
      await sleep(10);
      expect(id.authenticateToken).toHaveBeenCalledTimes(2);
      expect(writtenAt()).toBe(t0 + 25_000);
      // identity down when the renewed entry ages again: still served from Redis; the failed renewal changes nothing.
      now = t0 + 50_000;
      id.authenticateToken.mockRejectedValueOnce(new Error('UNAVAILABLE'));
      expect(await auth.authenticate('glpat-renewed')).toMatchObject({ ok: true, actor: { username: 'root' } });
      await sleep(10);
      expect(id.authenticateToken).toHaveBeenCalledTimes(3);
      expect(writtenAt()).toBe(t0 + 25_000);
    } finally {
      clock.mockRestore();
    }
  });

  it('does not share unusable tokens through Redis, and reports why they fail', async () => {
    for (const [status, reason] of [
      [identityV1.TokenStatus.TOKEN_STATUS_NOT_FOUND, 'not_found'],
      [identityV1.TokenStatus.TOKEN_STATUS_EXPIRED, 'expired'],
      [identityV1.TokenStatus.TOKEN_STATUS_REVOKED, 'revoked'],
      [identityV1.TokenStatus.TOKEN_STATUS_USER_BLOCKED, 'user_blocked'],
    ] as const) {
      const { redis, store } = fakeRedis();
      const auth = make(identity(status), redis, { negativeTtlMs: 1000 });
      expect(await auth.authenticate('t')).toEqual({ ok: false, reason });
      expect(store.size).toBe(0);
    }
  });

  it('serves repeats from the in-process cache without a Redis round trip, until its TTL passes', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const { redis, mock } = fakeRedis();
    const auth = make(id, redis, { localTtlMs: 100 });
    for (let i = 0; i < 5; i++) expect((await auth.authenticate('glpat-x')).ok).toBe(true);
    expect(id.authenticateToken).toHaveBeenCalledTimes(1);
    expect(mock.get).toHaveBeenCalledTimes(1); // the first miss only
    await sleep(150);
    expect((await auth.authenticate('glpat-x')).ok).toBe(true);
    expect(mock.get).toHaveBeenCalledTimes(2); // local entry expired: back to Redis (which still has it)
    expect(id.authenticateToken).toHaveBeenCalledTimes(1);
  });

  it('remembers a bad token briefly, in this process only', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_NOT_FOUND);
    const auth = make(id, fakeRedis().redis, { localTtlMs: 5000, negativeTtlMs: 100 });
    for (let i = 0; i < 10; i++) expect(await auth.authenticate('bad')).toEqual({ ok: false, reason: 'not_found' });
    expect(id.authenticateToken).toHaveBeenCalledTimes(1);
    await sleep(150);
    await auth.authenticate('bad');
    expect(id.authenticateToken).toHaveBeenCalledTimes(2);
  });

  it('asks identity once for concurrent look-ups of the same token', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const auth = make(id, undefined, { localTtlMs: 5000 });
    const results = await Promise.all(Array.from({ length: 32 }, () => auth.authenticate('glpat-burst')));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(id.authenticateToken).toHaveBeenCalledTimes(1);
  });

  it('keeps working when Redis is down (asks identity every time without a local cache)', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const auth = make(id, fakeRedis({ broken: true }).redis);
    expect((await auth.authenticate('t')).ok).toBe(true);
    expect((await auth.authenticate('t')).ok).toBe(true);
    expect(id.authenticateToken).toHaveBeenCalledTimes(2);
  });

  it('does not even try Redis while it is not connected', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const { redis, mock } = fakeRedis({ status: 'reconnecting' });
    const auth = make(id, redis);
    expect((await auth.authenticate('t')).ok).toBe(true);
    expect(mock.get).not.toHaveBeenCalled();
    expect(mock.set).not.toHaveBeenCalled();
  });

  it('ignores Redis entries written before it last reconnected (identity may have failed to delete them meanwhile)', async () => {
    const id = identity(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const { redis, events } = fakeRedis();
    const auth = make(id, redis);
    await auth.authenticate('glpat-aaaaaaaaaaaaaaaaaaaa');
    await auth.authenticate('glpat-aaaaaaaaaaaaaaaaaaaa');
    expect(id.authenticateToken).toHaveBeenCalledTimes(1); // the second came from Redis
    await sleep(5);
    events.emit('ready'); // Redis came back after an outage
    await auth.authenticate('glpat-aaaaaaaaaaaaaaaaaaaa');
    expect(id.authenticateToken).toHaveBeenCalledTimes(2);
    await auth.authenticate('glpat-aaaaaaaaaaaaaaaaaaaa');
    expect(id.authenticateToken).toHaveBeenCalledTimes(2); // rewritten after the reconnect: trusted again
  });

  it('drops a token on an invalidation message, and does not cache a look-up that was in flight when it came', async () => {
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha256').update('glpat-bbbbbbbbbbbbbbbbbbbb').digest('hex');
    const subscriber = new EventEmitter() as EventEmitter & { subscribe: jest.Mock };
    subscriber.subscribe = jest.fn(async () => 1);
    let release: () => void = () => undefined;
    const id = {
      authenticateToken: jest.fn(async () => {
        await new Promise<void>((r) => (release = r));
        return identityV1.AuthenticateTokenResponse.fromPartial({ status: identityV1.TokenStatus.TOKEN_STATUS_ACTIVE, user: root, scopes: ['api'] });
      }),
    };
    const { redis, store } = fakeRedis();
    const auth = make(id as unknown as Id, redis, { localTtlMs: 60_000, subscriber: subscriber as unknown as Redis });
    expect(subscriber.subscribe).toHaveBeenCalledWith('glp:auth:invalidate');
    const pending = auth.authenticate('glpat-bbbbbbbbbbbbbbbbbbbb');
    await sleep(1);
    subscriber.emit('message', 'glp:auth:invalidate', JSON.stringify([digest])); // revoked while identity was answering
    release();
    expect((await pending).ok).toBe(true);
    expect(store.size).toBe(0); // not written back to Redis
    await sleep(2); // a look-up in the same millisecond as the message counts as in flight
    const again = auth.authenticate('glpat-bbbbbbbbbbbbbbbbbbbb');
    await sleep(1);
    release();
    await again;
    expect(id.authenticateToken).toHaveBeenCalledTimes(2); // not served from the local cache either
    await auth.authenticate('glpat-bbbbbbbbbbbbbbbbbbbb');
    expect(id.authenticateToken).toHaveBeenCalledTimes(2); // a look-up after the message is cached again
    store.clear(); // identity deletes the Redis entry, then publishes
    subscriber.emit('message', 'glp:auth:invalidate', JSON.stringify([digest]));
    const third = auth.authenticate('glpat-bbbbbbbbbbbbbbbbbbbb');
    await sleep(1);
    release();
    await third;
    expect(id.authenticateToken).toHaveBeenCalledTimes(3); // the message dropped the cached answer
  });
});
