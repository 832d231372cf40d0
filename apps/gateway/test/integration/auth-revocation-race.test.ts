import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { identityV1 } from '@glp/proto';
import { authCacheKey } from '@glp/service-kit';
import { infraFromEnv } from '@glp/testing';
import { redisAuthCacheInvalidator } from '../../../identity/src/events/auth-cache-invalidator';
import { TokenAuthenticator } from '../../src/auth/token-authenticator';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alice = identityV1.User.fromPartial({ id: 7, username: 'alice', state: 'active' });

/**
 * The revocation race on real Redis, with two gateways and identity's invalidator: a look-up is in flight at identity
 * (which answered "valid" before the revocation committed), the revocation commits and is published, and only then
 * does the stale answer reach the gateway (its own invalidation message comes later still). Once the invalidation has
 * propagated, no gateway may accept the token: not the one whose look-up was in flight, not another one.
 */
describe('a token revoked while a gateway\'s look-up is in flight', () => {
  const connections: Redis[] = [];
  const connect = () => {
    const r = new Redis(infraFromEnv().redisUrl, { maxRetriesPerRequest: 1 });
    connections.push(r);
    return r;
  };
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
  });

  it('is refused by every gateway after the invalidation propagated, and its stale answer never lands in Redis', async () => {
    const token = `glpat-race-${Date.now()}-aaaaaaaaaaaa`;
    const digest = createHash('sha256').update(token).digest();
    let revoked = false;
    let release: () => void = () => undefined;
    const asked: string[] = [];
    // identity: the first look-up reads the token while it is still valid, and its answer is delayed on the wire.
    const identity = {
      authenticateToken: jest.fn(async () => {
        const status = revoked ? identityV1.TokenStatus.TOKEN_STATUS_REVOKED : identityV1.TokenStatus.TOKEN_STATUS_ACTIVE;
        asked.push(revoked ? 'revoked' : 'active');
        if (asked.length === 1) await new Promise<void>((r) => (release = r));
        return identityV1.AuthenticateTokenResponse.fromPartial({ status, user: alice, scopes: ['api'], tokenId: 1 });
      }),
    };
    const gateway = (subscriber?: Redis) =>
      new TokenAuthenticator({ identity, redis: connect(), subscriber, redisTtlSeconds: 30, localTtlMs: 1000, negativeTtlMs: 2000, logger });
    const slow = gateway(); // its invalidation message is late: delivered by hand below
    const other = gateway(connect());
    const invalidator = redisAuthCacheInvalidator(connect(), logger);
    await sleep(200); // connections ready, the other gateway subscribed

    const inFlight = slow.authenticate(token);
    while (asked.length === 0) await sleep(5);
    // The revocation commits; identity empties the cache and publishes, before answering the API.
    revoked = true;
    await invalidator.invalidate([digest]);
    await sleep(100); // the other gateway got the message
    release(); // the stale "valid" answer reaches the slow gateway now
    await inFlight;
    await sleep(50);
    slow.forget([digest.toString('hex')]); // and its invalidation message, last

    expect(await connections[0]!.get(authCacheKey(digest.toString('hex')))).toBeNull();
    expect(await slow.authenticate(token)).toEqual({ ok: false, reason: 'revoked' });
    expect(await other.authenticate(token)).toEqual({ ok: false, reason: 'revoked' });
    await invalidator.close();
  });
});
