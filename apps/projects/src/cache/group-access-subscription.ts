import { Redis } from 'ioredis';
import { groupAccessInvalidationChannel, parseGroupAccessChange, type Logger } from '@glp/service-kit';
import type { GroupAccessCache } from './group-access-cache';

/**
 * Subscribes, on a connection of its own, to identity's group access changes and hands them to the cache. The cache
 * keeps levels only from the moment the subscription is confirmed until the connection drops; each (re)subscription
 * starts it empty, as messages may have been missed in between.
 */
export function subscribeToGroupAccessChanges(redisUrl: string, topicPrefix: string, cache: GroupAccessCache, logger: Logger): { close(): void } {
  const channel = groupAccessInvalidationChannel(topicPrefix);
  const redis = new Redis(redisUrl, { autoResubscribe: false, maxRetriesPerRequest: null, connectionName: `${topicPrefix}projects-group-access` });
  redis.on('message', (from: string, message: string) => {
    if (from === channel) cache.invalidate(parseGroupAccessChange(message));
  });
  redis.on('ready', () => {
    redis.subscribe(channel).then(
      () => cache.setLive(true),
      (err: unknown) => logger.warn({ err }, 'group access invalidations: subscribe failed; levels are not kept'),
    );
  });
  const down = () => {
    if (cache.keeping) logger.warn('group access invalidations: connection lost; levels are not kept until it is back');
    cache.setLive(false);
  };
  redis.on('close', down);
  redis.on('end', down);
  redis.on('error', (err) => logger.debug({ err }, 'group access invalidations: redis error'));
  return {
    close() {
      cache.setLive(false);
      redis.disconnect();
    },
  };
}
