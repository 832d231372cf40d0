import { Redis } from 'ioredis';
import { authCacheKey, type Logger } from '@glp/service-kit';

/** Empties the gateways' shared auth cache for tokens whose answer changed (see libs/service-kit auth-cache). */
export interface AuthCacheInvalidator {
  /** Deletes the entries of these token digests; resolves when done (or, without Redis, at once). Never throws. */
  invalidate(digests: readonly Buffer[]): Promise<void>;
  close(): Promise<void>;
}

/** Without REDIS_URL there is no shared cache to empty. */
export const noAuthCache: AuthCacheInvalidator = { invalidate: async () => undefined, close: async () => undefined };

/**
 * Deletes the entries right after the change commits, before the API answers, so every gateway replica's next
 * look-up misses (its in-process cache lives at most AUTH_LOCAL_CACHE_TTL_MS, 1 s by default). When Redis does not
 * answer, the deletion is retried in the background until the entries' own TTL (`retryForMs`) has passed; gateways
 * also ignore entries written before they last (re)connected to Redis.
 */
export function redisAuthCacheInvalidator(url: string, logger: Logger, retryForMs = 60_000): AuthCacheInvalidator {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  redis.on('error', (err) => logger.debug({ err }, 'auth cache redis error'));
  const timers = new Set<NodeJS.Timeout>();
  const del = (keys: string[]) => redis.del(...keys);
  const retry = (keys: string[], since: number, delay: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      del(keys).catch(() => {
        if (Date.now() - since < retryForMs) retry(keys, since, Math.min(delay * 2, 5000));
        else logger.warn({ keys: keys.length }, 'auth cache entries could not be deleted; they expire with their TTL');
      });
    }, delay);
    timer.unref();
    timers.add(timer);
  };
  return {
    async invalidate(digests) {
      if (digests.length === 0) return;
      const keys = digests.map((d) => authCacheKey(d.toString('hex')));
      try {
        await del(keys);
      } catch (err) {
        logger.warn({ err }, 'auth cache invalidation failed; retrying in the background');
        retry(keys, Date.now(), 200);
      }
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      redis.disconnect();
    },
  };
}
