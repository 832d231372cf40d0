import { env } from '@glp/service-kit';

/**
 * Environment fields for the topics a service creates (its event topics and DLQ topics);
 * spread into a service's config schema: z.object({ ...kafkaTopicEnv, … }).
 * Locally 1 and 1 (one broker); a production cluster sets e.g. 3 and 2.
 */
export const kafkaTopicEnv = {
  /** Replicas of each topic the service creates. */
  KAFKA_REPLICATION_FACTOR: env.int(1, 1, 10),
  /** min.insync.replicas of each topic the service creates (acks=all writes need this many in-sync replicas). */
  KAFKA_MIN_INSYNC_REPLICAS: env.int(1, 1, 10),
};

/**
 * Environment fields of a service's EventConsumer: how long processed_events (its idempotence records) are kept, longer
 * than Kafka keeps the topics it consumes, and how often older ones are deleted. Spread into the config schema.
 */
export const processedEventsEnv = {
  PROCESSED_EVENTS_RETENTION_DAYS: env.int(14, 0, 3650),
  PROCESSED_EVENTS_PURGE_INTERVAL_MS: env.int(3600_000, 1000),
};

/** The EventConsumer options of processedEventsEnv. */
export function processedEventsRetention(c: { PROCESSED_EVENTS_RETENTION_DAYS: number; PROCESSED_EVENTS_PURGE_INTERVAL_MS: number }) {
  return { processedEventsRetentionMs: c.PROCESSED_EVENTS_RETENTION_DAYS * 24 * 3600 * 1000, processedEventsPurgeIntervalMs: c.PROCESSED_EVENTS_PURGE_INTERVAL_MS };
}

/**
 * Environment fields of a service's OutboxRelay: how long published outbox rows are kept (for backups: a restore
 * republishes them and consumers skip those they already applied) and how often older ones are deleted.
 */
export const outboxEnv = {
  OUTBOX_RETENTION_HOURS: env.int(72, 0, 24 * 3650),
  OUTBOX_PURGE_INTERVAL_MS: env.int(3600_000, 1000),
};

/**
 * The OutboxRelay options of outboxEnv. A retained event must still be deduplicated when a restore republishes it, so
 * the retention must stay below the consumers' processed_events retention (PROCESSED_EVENTS_RETENTION_DAYS, 14 days).
 */
export function outboxRetention(c: { OUTBOX_RETENTION_HOURS: number; OUTBOX_PURGE_INTERVAL_MS: number }) {
  return { retentionMs: c.OUTBOX_RETENTION_HOURS * 3600 * 1000, purgeIntervalMs: c.OUTBOX_PURGE_INTERVAL_MS };
}
