import { z } from 'zod';
import { migrationEnv } from '@glp/db';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv, outboxEnv, processedEventsEnv } from '@glp/events';

export const pushRulesEnv = z.object({
  ...commonServiceEnv,
  ...migrationEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9107),
  DATABASE_URL: env.url(),
  DB_SCHEMA: env.identifier('push_rules'),
  DB_POOL_MAX: env.int(10, 1, 200),
  GRPC_HOST: env.str('0.0.0.0'),
  GRPC_PORT: env.port(50057),
  IDENTITY_GRPC_ADDR: env.str('127.0.0.1:50051'),
  PROJECTS_GRPC_ADDR: env.str('127.0.0.1:50052'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  ...kafkaTopicEnv,
  ...outboxEnv,
  ...processedEventsEnv,
  /** Consumer group of its project events consumer. */
  KAFKA_CONSUMER_GROUP: env.str('push-rules'),
});

export type PushRulesConfig = z.infer<typeof pushRulesEnv>;

export function loadPushRulesConfig(source: NodeJS.ProcessEnv = process.env): PushRulesConfig {
  return loadConfig(pushRulesEnv, source);
}
