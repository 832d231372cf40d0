import path from 'node:path';
import { z } from 'zod';
import { migrationEnv } from '@glp/db';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv, outboxEnv, processedEventsEnv } from '@glp/events';

export const repoAdminEnv = z.object({
  ...commonServiceEnv,
  ...migrationEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9104),
  DATABASE_URL: env.url(),
  DB_SCHEMA: env.identifier('repo_admin'),
  DB_POOL_MAX: env.int(10, 1, 200),
  GRPC_HOST: env.str('0.0.0.0'),
  GRPC_PORT: env.port(50054),
  /** Git over HTTP: the listener the gateway proxies clones, fetches and pushes to (signed requests only). */
  HTTP_HOST: env.str('0.0.0.0'),
  HTTP_PORT: env.port(8081),
  IDENTITY_GRPC_ADDR: env.str('127.0.0.1:50051'),
  /** projects' gRPC address: repo-admin asks it for import sources (URLs with credentials never travel in events). */
  PROJECTS_GRPC_ADDR: env.str('127.0.0.1:50052'),
  /** push-rules' gRPC address: every push's pre-receive check asks it (GetPushChecks, CheckPush); unreachable → push refused. */
  PUSH_RULES_GRPC_ADDR: env.str('127.0.0.1:50057'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  ...kafkaTopicEnv,
  ...outboxEnv,
  ...processedEventsEnv,
  /** Empty: `repo-admin-<REPOSITORY_STORAGE>` (one group per storage: each storage's replica sees every event). */
  KAFKA_CONSUMER_GROUP: z.string().default(''),
  /** Where this replica keeps its storage (`<DATA_DIR>/repositories` when unset). */
  DATA_DIR: env.str(path.resolve('.data')),
  STORAGE_ROOT: env.str(''),
  /** The repository_storage shard this replica serves. */
  REPOSITORY_STORAGE: env.str('default'),
  /** The git binary, and the longest one git command may run. */
  GIT_BIN: env.str('git'),
  GIT_TIMEOUT_MS: env.int(600_000, 1000),
  /**
   * Git over HTTP: git upload-pack/receive-pack processes at once on this storage and per client (user, or address when
   * anonymous), and the largest decompressed gzip request body, in MiB.
   */
  GIT_HTTP_CONCURRENCY: env.int(64, 1, 10_000),
  GIT_HTTP_CLIENT_CONCURRENCY: env.int(8, 1, 10_000),
  GIT_HTTP_MAX_DECOMPRESSED_MB: env.int(100, 1, 100_000),
  /** A git request for a project whose repository is still being created waits this long for it (GitHttpDeps). */
  GIT_REPOSITORY_WAIT_MS: env.int(10_000, 0, 120_000),
  /** How often the job worker looks for work when no notification came. */
  JOB_POLL_MS: env.int(1000, 50),
  /**
   * Fork copies, imports, mirror updates and housekeeping at once per process (imports and mirror updates never take the
   * last slot); creates and removals at once beside them; each kind's time limit.
   */
  JOB_CONCURRENCY: env.int(4, 1, 64),
  JOB_QUICK_CONCURRENCY: env.int(8, 1, 64),
  JOB_TIME_LIMIT_MS: env.int(120_000, 1000),
  JOB_SLOW_TIME_LIMIT_MS: env.int(30 * 60_000, 1000),
  JOB_MAX_ATTEMPTS: env.int(5, 1, 100),
  /** GitLab's `max_attachment_size`: the largest upload (POST /projects/:id/uploads), in megabytes (MiB). */
  MAX_ATTACHMENT_SIZE: env.int(100, 1, 100_000),
  /**
   * GitLab's outbound URL rules for imports and mirrors: loopback and private targets allowed, and the
   * `outbound_local_requests_whitelist` (hosts, IPs, CIDRs, optional :port). Checked again, resolved and pinned, at fetch time.
   */
  IMPORT_ALLOW_LOCAL_NETWORK: env.bool(false),
  /** Pull mirrors: time between scheduled updates, and how often due mirrors are looked for. */
  MIRROR_INTERVAL_MS: env.int(30 * 60_000, 1000),
  MIRROR_POLL_MS: env.int(10_000, 100),
  IMPORT_URL_ALLOWLIST: env.optionalList(),
});

export type RepoAdminConfig = z.infer<typeof repoAdminEnv>;

export function loadRepoAdminConfig(source: NodeJS.ProcessEnv = process.env): RepoAdminConfig {
  return loadConfig(repoAdminEnv, source);
}

/** The storage root of this replica: STORAGE_ROOT, else `<DATA_DIR>/repositories`. */
export const storageRoot = (c: Pick<RepoAdminConfig, 'STORAGE_ROOT' | 'DATA_DIR'>) => path.resolve(c.STORAGE_ROOT || path.join(c.DATA_DIR, 'repositories'));
