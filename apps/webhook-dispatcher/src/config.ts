import { z } from 'zod';
import { migrationEnv } from '@glp/db';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv, outboxEnv, processedEventsEnv } from '@glp/events';

export const webhookDispatcherEnv = z.object({
  ...commonServiceEnv,
  ...migrationEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9106),
  DATABASE_URL: env.url(),
  DB_SCHEMA: env.identifier('webhook_dispatcher'),
  DB_POOL_MAX: env.int(10, 1, 200),
  GRPC_HOST: env.str('0.0.0.0'),
  GRPC_PORT: env.port(50056),
  IDENTITY_GRPC_ADDR: env.str('127.0.0.1:50051'),
  PROJECTS_GRPC_ADDR: env.str('127.0.0.1:50052'),
  REPO_ADMIN_GRPC_ADDR: env.str('127.0.0.1:50054'),
  HOOKS_GRPC_ADDR: env.str('127.0.0.1:50055'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  ...kafkaTopicEnv,
  ...outboxEnv,
  ...processedEventsEnv,
  /** Consumer group of its repo-admin/hooks/identity events consumer. */
  KAFKA_CONSUMER_GROUP: env.str('webhook-dispatcher'),
  /** X-Gitlab-Instance (GitLab's base_url) and the base of the payload's URLs. */
  EXTERNAL_URL: env.url().default('http://127.0.0.1:8080'),
  /** User-Agent: GitLab/<version> (the gateway's /version). */
  GITLAB_VERSION: env.str('18.6.0'),
  /** GitLab's push_event_hooks_limit: pushes of more refs run no push/tag push hooks. */
  PUSH_EVENT_HOOKS_LIMIT: env.int(3, 0),
  /** Deliveries sent at once by one process. */
  DISPATCH_CONCURRENCY: env.int(16, 1, 1000),
  /** How long a claimed delivery stays claimed (a crashed replica's work returns after it). */
  DISPATCH_LEASE_MS: env.int(60000, 1000),
  /** How often due deliveries are looked for besides notifications. */
  WEBHOOK_POLL_MS: env.int(1000, 10),
  /** GitLab's webhook_timeout: the whole request (redirects included). */
  WEBHOOK_TIMEOUT_MS: env.int(10000, 100),
  /** Retries: delay = random in [d/2, d], d = min(WEBHOOK_RETRY_MAX_MS, WEBHOOK_RETRY_BASE_MS · 2^(attempt−1)). */
  WEBHOOK_RETRY_BASE_MS: env.int(10000, 1),
  WEBHOOK_RETRY_MAX_MS: env.int(3600000, 1),
  /** Attempts of one delivery before it is failed. */
  WEBHOOK_MAX_ATTEMPTS: env.int(12, 1, 1000),
  /** GitLab's auto-disable back-off: WEBHOOK_DISABLE_BASE_MS · 2^(failures−4), clamped to [base, WEBHOOK_DISABLE_MAX_MS]. */
  WEBHOOK_DISABLE_BASE_MS: env.int(60000, 1),
  WEBHOOK_DISABLE_MAX_MS: env.int(86400000, 1),
  /** How often identity's URL settings are re-read (besides ApplicationSettingsChanged). */
  SETTINGS_REFRESH_MS: env.int(60000, 100),
  /** How long delivery logs are kept (GitLab: 7 days), and how often old ones are deleted. */
  LOG_RETENTION_DAYS: env.int(7, 1),
  RETENTION_INTERVAL_MS: env.int(3600000, 1000),
});

export type WebhookDispatcherConfig = z.infer<typeof webhookDispatcherEnv>;

export function loadWebhookDispatcherConfig(source: NodeJS.ProcessEnv = process.env): WebhookDispatcherConfig {
  return loadConfig(webhookDispatcherEnv, source);
}
