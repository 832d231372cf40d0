import type { Redis } from 'ioredis';
import { AUTH_GENERATION_TTL_SECONDS, AUTH_INVALIDATION_CHANNEL, authCacheKey, authGenerationKey, type Logger } from '@glp/service-kit';
import { multiSucceeded, RetryingRedisWrites } from './redis-retry';

/** Empties the gateways' shared auth cache for tokens whose answer changed (see libs/service-kit auth-cache). */
export interface AuthCacheInvalidator {
  /** Deletes the entries of these token digests; resolves when done (or, without Redis, at once). Never throws. */
  invalidate(digests: readonly Buffer[]): Promise<void>;
  close(): Promise<void>;
}

/** Without REDIS_URL there is no shared cache to empty. */
export const noAuthCache: AuthCacheInvalidator = { invalidate: async () => undefined, close: async () => undefined };

/**
 * Right after the change commits, before the API answers: deletes the Redis entries, moves the tokens' generations (so
 * a look-up in flight cannot write its older answer back) and publishes the digests on
 * AUTH_INVALIDATION_CHANNEL, so every gateway replica drops them from its in-process cache at once (which otherwise
 * lives at most AUTH_LOCAL_CACHE_TTL_MS, 1 s by default). When Redis does not answer, both are retried in the
 * background until the entries' own TTL (`retryForMs`) has passed; gateways also ignore entries written before they
 * last (re)connected to Redis.
 */
export function redisAuthCacheInvalidator(redis: Redis, logger: Logger, retryForMs = 60_000): AuthCacheInvalidator {
  const writes = new RetryingRedisWrites(logger, 'auth cache invalidation', retryForMs);
  return {
    async invalidate(digests) {
      if (digests.length === 0) return;
      const hex = digests.map((d) => d.toString('hex'));
      await writes.run(async () => {
        // The generations move with the deletions, so a gateway's look-up that started before cannot write back.
        const multi = redis.multi().del(...hex.map(authCacheKey));
        for (const h of hex) multi.incr(authGenerationKey(h)).expire(authGenerationKey(h), AUTH_GENERATION_TTL_SECONDS);
        multiSucceeded(await multi.publish(AUTH_INVALIDATION_CHANNEL, JSON.stringify(hex)).exec());
      });
    },
    async close() {
      writes.close();
    },
  };
}
