import { z } from 'zod';
import { migrationEnv } from '@glp/db';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv, outboxEnv, processedEventsEnv } from '@glp/events';

export const accessRequestsEnv = z.object({
  ...commonServiceEnv,
  ...migrationEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9103),
  DATABASE_URL: env.url(),
  DB_SCHEMA: env.identifier('access_requests'),
  DB_POOL_MAX: env.int(10, 1, 200),
  GRPC_HOST: env.str('0.0.0.0'),
  GRPC_PORT: env.port(50053),
  IDENTITY_GRPC_ADDR: env.str('127.0.0.1:50051'),
  PROJECTS_GRPC_ADDR: env.str('127.0.0.1:50052'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  ...kafkaTopicEnv,
  ...outboxEnv,
  ...processedEventsEnv,
  /** Consumer group of its project/identity events consumer. */
  KAFKA_CONSUMER_GROUP: env.str('access-requests'),
  /** How often approvals interrupted by a crash are completed, and how old their intent must be. */
  APPROVAL_RECOVERY_INTERVAL_MS: env.int(5000, 100),
  APPROVAL_RECOVERY_AFTER_MS: env.int(10000, 0),
});

export type AccessRequestsConfig = z.infer<typeof accessRequestsEnv>;

export function loadAccessRequestsConfig(source: NodeJS.ProcessEnv = process.env): AccessRequestsConfig {
  return loadConfig(accessRequestsEnv, source);
}
