import path from 'node:path';
import { z } from 'zod';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv } from '@glp/events';

export const repoAdminEnv = z.object({
  ...commonServiceEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9104),
  DATABASE_URL: env.url(),
  DB_SCHEMA: env.identifier('repo_admin'),
  DB_POOL_MAX: env.int(10, 1, 200),
  GRPC_HOST: env.str('0.0.0.0'),
  GRPC_PORT: env.port(50054),
  IDENTITY_GRPC_ADDR: env.str('127.0.0.1:50051'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  ...kafkaTopicEnv,
  KAFKA_CONSUMER_GROUP: env.str('repo-admin'),
  /** Where this replica keeps its storage (`<DATA_DIR>/repositories` when unset). */
  DATA_DIR: env.str(path.resolve('.data')),
  STORAGE_ROOT: env.str(''),
  /** The repository_storage shard this replica serves. */
  REPOSITORY_STORAGE: env.str('default'),
  /** The git binary, and the longest one git command may run. */
  GIT_BIN: env.str('git'),
  GIT_TIMEOUT_MS: env.int(600_000, 1000),
  /** How often the job worker looks for work when no notification came, and how long a claimed job stays claimed. */
  JOB_POLL_MS: env.int(1000, 50),
  JOB_LEASE_MS: env.int(15 * 60_000, 1000),
  JOB_MAX_ATTEMPTS: env.int(5, 1, 100),
});

export type RepoAdminConfig = z.infer<typeof repoAdminEnv>;

export function loadRepoAdminConfig(source: NodeJS.ProcessEnv = process.env): RepoAdminConfig {
  return loadConfig(repoAdminEnv, source);
}

/** The storage root of this replica: STORAGE_ROOT, else `<DATA_DIR>/repositories`. */
export const storageRoot = (c: Pick<RepoAdminConfig, 'STORAGE_ROOT' | 'DATA_DIR'>) => path.resolve(c.STORAGE_ROOT || path.join(c.DATA_DIR, 'repositories'));
