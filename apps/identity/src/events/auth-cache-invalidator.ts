import { Redis } from 'ioredis';
import { AUTH_INVALIDATION_CHANNEL, authCacheKey, type Logger } from '@glp/service-kit';

/** Empties the gateways' shared auth cache for tokens whose answer changed (see libs/service-kit auth-cache). */
export interface AuthCacheInvalidator {
  /** Deletes the entries of these token digests; resolves when done (or, without Redis, at once). Never throws. */
  invalidate(digests: readonly Buffer[]): Promise<void>;
  close(): Promise<void>;
}

/** Without REDIS_URL there is no shared cache to empty. */
export const noAuthCache: AuthCacheInvalidator = { invalidate: async () => undefined, close: async () => undefined };

/**
 * Right after the change commits, before the API answers: deletes the Redis entries and publishes the digests on
 * AUTH_INVALIDATION_CHANNEL, so every gateway replica drops them from its in-process cache at once (which otherwise
 * lives at most AUTH_LOCAL_CACHE_TTL_MS, 1 s by default). When Redis does not answer, both are retried in the
 * background until the entries' own TTL (`retryForMs`) has passed; gateways also ignore entries written before they
 * last (re)connected to Redis.
 */
export function redisAuthCacheInvalidator(url: string, logger: Logger, retryForMs = 60_000): AuthCacheInvalidator {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  redis.on('error', (err) => logger.debug({ err }, 'auth cache redis error'));
  const timers = new Set<NodeJS.Timeout>();
  const send = async (hex: string[]) => {
    const results = await redis.multi().del(...hex.map(authCacheKey)).publish(AUTH_INVALIDATION_CHANNEL, JSON.stringify(hex)).exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('redis transaction aborted');
  };
  const retry = (hex: string[], since: number, delay: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(hex).catch(() => {
        if (Date.now() - since < retryForMs) retry(hex, since, Math.min(delay * 2, 5000));
        else logger.warn({ keys: hex.length }, 'auth cache entries could not be deleted; they expire with their TTL');
      });
    }, delay);
    timer.unref();
    timers.add(timer);
  };
  return {
    async invalidate(digests) {
      if (digests.length === 0) return;
      const hex = digests.map((d) => d.toString('hex'));
      try {
        await send(hex);
      } catch (err) {
        logger.warn({ err }, 'auth cache invalidation failed; retrying in the background');
        retry(hex, Date.now(), 200);
      }
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      redis.disconnect();
    },
  };
}
