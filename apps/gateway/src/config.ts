import { z } from 'zod';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';

export const gatewayEnv = z.object({
  ...commonServiceEnv,
  /** Prometheus GET /metrics (0 = off). */
  METRICS_PORT: env.port(9100),
  HOST: env.str('0.0.0.0'),
  PORT: env.port(8080),
  /** The URL clients use to reach this API (web_url, Link headers). Empty: taken from each request's Host. */
  EXTERNAL_URL: z.string().url().optional(),
  IDENTITY_GRPC_ADDR: env.str('127.0.0.1:50051'),
  PROJECTS_GRPC_ADDR: env.str('127.0.0.1:50052'),
  ACCESS_REQUESTS_GRPC_ADDR: env.str('127.0.0.1:50053'),
  REPO_ADMIN_GRPC_ADDR: env.str('127.0.0.1:50054'),
  HOOKS_GRPC_ADDR: env.str('127.0.0.1:50055'),
  PUSH_RULES_GRPC_ADDR: env.str('127.0.0.1:50057'),
  /** POST /projects/:id/hooks/:hook_id/test/:trigger per (project, user) per minute (GitLab's web_hook_test: 5); 0 = off. */
  HOOK_TEST_RATE_LIMIT: env.int(5, 0, 100000),
  /** POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend per (project, user) per minute (web_hook_event_resend: 5); 0 = off. */
  HOOK_RESEND_RATE_LIMIT: env.int(5, 0, 100000),
  /** GitLab's `throttle_unauthenticated_api_*` (per IP, /api/v4 without a valid token); off by default as in GitLab. */
  THROTTLE_UNAUTHENTICATED_API_ENABLED: env.bool(false),
  THROTTLE_UNAUTHENTICATED_API_REQUESTS_PER_PERIOD: env.int(3600, 1, 100000000),
  THROTTLE_UNAUTHENTICATED_API_PERIOD_IN_SECONDS: env.int(3600, 1, 86400),
  /** GitLab's `throttle_authenticated_api_*` (per user, /api/v4 with a valid token); off by default as in GitLab. */
  THROTTLE_AUTHENTICATED_API_ENABLED: env.bool(false),
  THROTTLE_AUTHENTICATED_API_REQUESTS_PER_PERIOD: env.int(7200, 1, 100000000),
  THROTTLE_AUTHENTICATED_API_PERIOD_IN_SECONDS: env.int(3600, 1, 86400),
  /** Prefix of the rate-limit counters in Redis (gateways sharing one Redis for different deployments or test stacks differ). */
  RATE_LIMIT_KEY_PREFIX: z.string().regex(/^[\w:.-]{1,64}$/, 'letters, digits, ":", ".", "_" and "-" only').default('glp:rl'),
  /** repo-admin's git HTTP listener: clones, fetches and pushes at http_url_to_repo are proxied there. */
  REPO_ADMIN_HTTP_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** Further repo-admin shards: `<storage>=<grpc host:port>|<http url>`, comma-separated (the `default` storage is above). */
  REPO_ADMIN_STORAGES: z.string().default(''),
  REDIS_URL: env.url(),
  /** How long a token's identity is cached in Redis (seconds); 0 disables the cache. */
  AUTH_CACHE_TTL_SECONDS: env.int(30, 0, 3600),
  /** How long this process remembers a usable token (ms) before asking Redis again; 0 disables it. */
  AUTH_LOCAL_CACHE_TTL_MS: env.int(1000, 0, 60000),
  /** How long this process remembers an unusable (unknown, expired, revoked) token (ms); 0 disables it. */
  AUTH_NEGATIVE_CACHE_TTL_MS: env.int(2000, 0, 60000),
  /** Level of the one-line access log; set it below LOG_LEVEL (e.g. debug with LOG_LEVEL=info) to turn it off. */
  ACCESS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /** Echoed by GET /-/readiness so a launcher can tell its own gateway from another process on the port. */
  INSTANCE_ID: z.string().regex(/^[\w.-]{1,64}$/, 'letters, digits, ".", "_" and "-" only').optional(),
  /** Deadline of each gRPC call made for a request. */
  GRPC_DEADLINE_MS: env.int(10000, 100, 120000),
  /**
   * GET /projects/:id reads that arrive together (within this many ms of the first; 0 = in the same turn of the event
   * loop) go to projects as one GetProjects call, whatever their callers.
   */
  PROJECT_READ_BATCH_WINDOW_MS: env.int(0, 0, 1000),
  /** The most reads one GetProjects call carries (projects takes up to 100); 1 turns batching off. */
  PROJECT_READ_BATCH_MAX: env.int(100, 1, 100),
  /**
   * Bytes of project JSON (and the protobuf bytes each was made from) kept by the presentation cache of listings and
   * GET /projects/:id (presented-json-cache.ts), found by the project's id and how it is presented, answering only the
   * same bytes; 0 turns it off.
   */
  PRESENTED_JSON_CACHE_BYTES: env.int(32 * 1024 * 1024, 0, 1024 * 1024 * 1024),
  /** Reported by GET /version and /metadata. */
  GITLAB_VERSION: env.str('18.6.0'),
  BODY_LIMIT: env.str('10mb'),
  /** A client must have sent the request line and all headers within this (ms), else 408 and the connection is closed. */
  HTTP_HEADERS_TIMEOUT_MS: env.int(10_000, 100, 600_000),
  /** The whole request (headers and body) within this (ms), else 408; long for git pushes and big uploads (0 = none). */
  HTTP_REQUEST_TIMEOUT_MS: env.int(3_600_000, 0, 86_400_000),
  /** An idle keep-alive connection is closed after this (ms); above the idle timeout of a load balancer in front. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: env.int(65_000, 100, 600_000),
  /** Proxies in front of the gateway (Express "trust proxy"), e.g. 1 behind one ingress. */
  TRUST_PROXY: env.int(0, 0, 10),
});

export type GatewayConfig = z.infer<typeof gatewayEnv>;

export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayEnv, source);
}
