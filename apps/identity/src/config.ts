import { z } from 'zod';
import { migrationEnv } from '@glp/db';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv, outboxEnv } from '@glp/events';
import {
  allowlistErrors, DEFAULT_DELETION_ADJOURNED_PERIOD, MAX_DELETION_ADJOURNED_PERIOD, MIN_DELETION_ADJOURNED_PERIOD, normalizeAllowlist,
} from './domain/application-settings';

export const identityEnv = z.object({
  ...commonServiceEnv,
  ...migrationEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9101),
  DATABASE_URL: env.url(),
  DB_SCHEMA: env.identifier('identity'),
  /** Connections per process: gRPC handlers are short; 10 keeps 40 replicas under a 400-connection server. */
  DB_POOL_MAX: env.int(10, 1, 200),
  GRPC_HOST: env.str('0.0.0.0'),
  GRPC_PORT: env.port(50051),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  /** Replication factor and min.insync.replicas of the topics this service creates (event and DLQ topics). */
  ...kafkaTopicEnv,
  ...outboxEnv,
  /** The administrator's token. When unset, one is generated on first start and written to DATA_DIR/root-token. */
  GITLAB_ROOT_TOKEN: z.string().min(20, 'must be at least 20 characters').optional(),
  GITLAB_ROOT_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  GITLAB_ROOT_EMAIL: z.string().email().default('admin@example.com'),
  DATA_DIR: env.str('.data'),
  /** The gateways' shared auth cache, emptied when a token is revoked or a user's rights change (optional). */
  REDIS_URL: env.url().optional(),
  /** Group, namespace and member listings are counted up to this; beyond, X-Total is omitted (as GitLab). */
  LIST_COUNT_LIMIT: env.int(10000, 1),
  /**
   * Start-up defaults of the application settings, applied only when their row is first created (GitLab's settings
   * seeding): GitLab's allow_local_requests_from_web_hooks_and_services and outbound_local_requests_whitelist (hosts,
   * host:port, IPs, CIDRs, [IPv6]:port). Later changes through PUT /application/settings win.
   */
  ALLOW_LOCAL_WEBHOOKS: env.bool(false),
  OUTBOUND_ALLOWLIST: env.optionalList().transform(normalizeAllowlist).superRefine((list, ctx) => {
    for (const message of allowlistErrors(list)) ctx.addIssue({ code: 'custom', message });
  }),
  /** GitLab's deletion_adjourned_period (days a project or group marked for deletion waits), within GitLab's bounds. */
  DELETION_ADJOURNED_PERIOD: env.int(DEFAULT_DELETION_ADJOURNED_PERIOD, MIN_DELETION_ADJOURNED_PERIOD, MAX_DELETION_ADJOURNED_PERIOD),
  /** How often groups marked for deletion longer than deletion_adjourned_period ago are removed (with their subgroups). */
  GROUP_REMOVAL_INTERVAL_MS: env.int(60_000, 100),
});

export type IdentityConfig = z.infer<typeof identityEnv>;

export function loadIdentityConfig(source: NodeJS.ProcessEnv = process.env): IdentityConfig {
  return loadConfig(identityEnv, source);
}
