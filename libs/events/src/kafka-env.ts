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
