import type { Redis } from 'ioredis';
import { encodeGroupAccessChange, groupAccessInvalidationChannel, type GroupAccessChange, type Logger } from '@glp/service-kit';
import { RetryingRedisWrites } from './redis-retry';

/** Tells the services that keep users' group levels (projects) whose levels changed (libs/service-kit group-access-cache). */
export interface GroupAccessInvalidator {
  /** Publishes the change; resolves when Redis took it (or, without Redis, at once). Never throws. */
  changed(change: GroupAccessChange): Promise<void>;
  close(): void;
}

/** Without REDIS_URL no service keeps group levels (projects asks identity every time). */
export const noGroupAccessCache: GroupAccessInvalidator = { changed: async () => undefined, close: () => undefined };

/**
 * Right after the change commits, before the API answers: publishes whose levels changed on
 * groupAccessInvalidationChannel(KAFKA_TOPIC_PREFIX), so every projects process drops them at once (they otherwise live at most
 * GROUP_ACCESS_CACHE_TTL_MS there). When Redis does not answer, the message is retried in the background for
 * `retryForMs`; projects keeps nothing while its own subscription is down.
 */
export function redisGroupAccessInvalidator(redis: Redis, topicPrefix: string, logger: Logger, retryForMs = 60_000): GroupAccessInvalidator {
  const channel = groupAccessInvalidationChannel(topicPrefix);
  const writes = new RetryingRedisWrites(logger, 'group access invalidation', retryForMs);
  return {
    async changed(change) {
      if ('users' in change && change.users.length === 0) return;
      const message = encodeGroupAccessChange(change);
      await writes.run(async () => {
        await redis.publish(channel, message);
      });
    },
    close() {
      writes.close();
    },
  };
}
