import { z } from 'zod';
import { migrationEnv } from '@glp/db';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv, outboxEnv, processedEventsEnv } from '@glp/events';

export const hooksEnv = z.object({
  ...commonServiceEnv,
  ...migrationEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9105),
  DATABASE_URL: env.url(),
  DB_SCHEMA: env.identifier('hooks'),
  DB_POOL_MAX: env.int(10, 1, 200),
  GRPC_HOST: env.str('0.0.0.0'),
  GRPC_PORT: env.port(50055),
  IDENTITY_GRPC_ADDR: env.str('127.0.0.1:50051'),
  PROJECTS_GRPC_ADDR: env.str('127.0.0.1:50052'),
  WEBHOOK_DISPATCHER_GRPC_ADDR: env.str('127.0.0.1:50056'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  ...kafkaTopicEnv,
  ...outboxEnv,
  ...processedEventsEnv,
  /** Consumer group of its project / webhook-dispatcher events consumer. */
  KAFKA_CONSUMER_GROUP: env.str('hooks'),
  /** GitLab's `project_hooks` plan limit: hooks one project may have (0 = no limit). */
  PROJECT_HOOKS_LIMIT: env.int(100, 0, 1_000_000),
  /** Seals hook tokens, URLs, url variables and custom headers at rest; empty: derived from ACTOR_SECRET. */
  HOOKS_SECRETS_KEY: env.str(''),
});

export type HooksConfig = z.infer<typeof hooksEnv>;

export function loadHooksConfig(source: NodeJS.ProcessEnv = process.env): HooksConfig {
  return loadConfig(hooksEnv, source);
}
