import { z } from 'zod';
import { migrationEnv } from '@glp/db';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv, outboxEnv, processedEventsEnv } from '@glp/events';

export const projectsEnv = z.object({
  ...commonServiceEnv,
  ...migrationEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9102),
  DATABASE_URL: env.url(),
  DB_SCHEMA: env.identifier('projects'),
  /** Per process; reads dominate and are single-statement, so 10 serves ~1k req/s per replica. */
  DB_POOL_MAX: env.int(10, 1, 200),
  /**
   * Per process, beside DB_POOL_MAX: connections that keep generic plans, for the listings whose plan no value changes
   * (an administrator's or anonymous caller's, by visibility and archived state only); 0: those use the main pool.
   */
  DB_GENERIC_PLAN_POOL_MAX: env.int(4, 0, 200),
  GRPC_HOST: env.str('0.0.0.0'),
  GRPC_PORT: env.port(50052),
  /** identity's gRPC address (host:port). */
  IDENTITY_GRPC_ADDR: env.str('127.0.0.1:50051'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  /** Replication factor and min.insync.replicas of the topics this service creates (event and DLQ topics). */
  ...kafkaTopicEnv,
  ...outboxEnv,
  ...processedEventsEnv,
  KAFKA_CONSUMER_GROUP: env.str('projects'),
  /**
   * Bytes of listed projects' protobuf encodings kept, each under what it was made of (the project's and its namespace's
   * row versions, the caller's access), so an entry is never stale; least recently used go first; 0 keeps none.
   */
  ENCODED_PROJECT_CACHE_BYTES: env.int(16 * 1024 * 1024, 0, 1024 * 1024 * 1024),
  /**
   * Redis, for identity's group access changes (optional): with it, users' group levels are kept per process
   * (GROUP_ACCESS_CACHE_*) and dropped when identity publishes a change; without it identity is asked every time.
   */
  REDIS_URL: env.url().optional(),
  /** How long a user's group levels are kept: the bound on an invalidation message lost while connected; 0 keeps none. */
  GROUP_ACCESS_CACHE_TTL_MS: env.int(5000, 0, 600_000),
  /** Group levels kept in all (a user in n groups counts n + 1); least recently used go first. */
  GROUP_ACCESS_CACHE_LEVELS: env.int(200_000, 0, 100_000_000),
  /**
   * Paths of projects read by path (`GET /projects/:id` with `namespace/project`) kept with the project they named, as a
   * hint checked against the project's row on every read (never served stale); least recently used go first; 0 keeps none.
   */
  PROJECT_PATH_HINTS: env.int(100_000, 0, 10_000_000),
  /** Counting stops here: larger listings omit X-Total / X-Total-Pages, as GitLab does. */
  LIST_COUNT_LIMIT: env.int(10000, 1),
  /** How often projects marked for deletion longer than identity's deletion_adjourned_period ago are purged. */
  PURGE_INTERVAL_MS: env.int(60000, 100),
  /** Seals import URLs (their credentials) at rest; unset: derived from ACTOR_SECRET. */
  SECRETS_KEY: env.str(''),
  /**
   * GitLab's outbound URL rules for imports and mirrors: `allow_local_requests_from_web_hooks_and_services` (loopback and
   * private addresses allowed) and `outbound_local_requests_whitelist` (hosts, IPs, CIDRs, optional :port).
   */
  IMPORT_ALLOW_LOCAL_NETWORK: env.bool(false),
  /** The repository storages (repo-admin shards) a project may be created on; the first is the default. */
  REPOSITORY_STORAGES: env.optionalList('default'),
  IMPORT_URL_ALLOWLIST: env.optionalList(),
});

export type ProjectsConfig = z.infer<typeof projectsEnv>;

export function loadProjectsConfig(source: NodeJS.ProcessEnv = process.env): ProjectsConfig {
  return loadConfig(projectsEnv, source);
}
