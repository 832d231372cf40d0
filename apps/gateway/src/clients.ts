import { Redis } from 'ioredis';
import { accessRequestsV1, hooksV1, identityV1, projectsV1, pushRulesV1, repoAdminV1 } from '@glp/proto';
import { createGrpcClient, type PromiseClient } from '@glp/service-kit';
import type { GatewayConfig } from './config';
import { createRepoAdminStreams, type RepoAdminStreams } from './repo-admin-streams';
import { createUploadStreams, type UploadStreams } from './upload-streams';
import { HookRateLimits } from './http/hook-rate-limits';
import { ApiRateLimits } from './http/api-rate-limits';
import { parseShards, RepoAdminRouter } from './repo-admin-router';
import { ProjectReadBatcher } from './project-read-batcher';
import { ProjectBytesClient } from './project-bytes-client';
import { PresentedJsonCache } from './presenters/presented-json-cache';

export interface Services {
  identity: PromiseClient<identityV1.IdentityServiceClient>;
  projects: PromiseClient<projectsV1.ProjectsServiceClient>;
  /** Projects' reads with the projects left encoded (project-bytes-client.ts), presented through `presentedProjects`. */
  projectBytes: PromiseClient<ProjectBytesClient>;
  /** Projects' JSON by their bytes and how they are presented (presented-json-cache.ts): listings and GET /projects/:id. */
  presentedProjects: PresentedJsonCache;
  /** GET /projects/:id's reads, coalesced into GetProjects calls (project-read-batcher.ts); the projects' bytes. */
  projectReads: ProjectReadBatcher<Buffer>;
  accessRequests: PromiseClient<accessRequestsV1.AccessRequestsServiceClient>;
  repoAdmin: PromiseClient<repoAdminV1.RepoAdminServiceClient>;
  /** repo-admin's server-streaming calls (snapshots). */
  repoAdminStreams: RepoAdminStreams;
  /** repo-admin's streaming calls of uploads and avatars. */
  uploads: UploadStreams;
  hooks: PromiseClient<hooksV1.HooksServiceClient>;
  pushRules: PromiseClient<pushRulesV1.PushRulesServiceClient>;
  /** Hook test / event resend limits per (project, user), in the shared Redis. */
  hookRateLimits: HookRateLimits;
  /** GitLab's Rack::Attack API throttles (per IP / per user) in the shared Redis; undefined when both are off. */
  apiRateLimits?: ApiRateLimits;
  /** The git HTTP listener of the repo-admin serving a storage (repository_storage; unknown: default). */
  repoAdminHttpUrl(storage: string | undefined): string;
  close(): void;
}

export function createServices(config: GatewayConfig): Services {
  const opts = { actorSecret: config.ACTOR_SECRET, defaultDeadlineMs: config.GRPC_DEADLINE_MS };
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, opts);
  const projects = createGrpcClient(projectsV1.ProjectsServiceClient, config.PROJECTS_GRPC_ADDR, opts);
  const projectBytes = createGrpcClient(ProjectBytesClient, config.PROJECTS_GRPC_ADDR, opts);
  const accessRequests = createGrpcClient(accessRequestsV1.AccessRequestsServiceClient, config.ACCESS_REQUESTS_GRPC_ADDR, opts);
  const hooks = createGrpcClient(hooksV1.HooksServiceClient, config.HOOKS_GRPC_ADDR, opts);
  const pushRules = createGrpcClient(pushRulesV1.PushRulesServiceClient, config.PUSH_RULES_GRPC_ADDR, opts);
  // Its own connection: a limiter must not queue behind the auth cache; while Redis is down an in-process limiter counts.
  const apiThrottles = config.THROTTLE_UNAUTHENTICATED_API_ENABLED || config.THROTTLE_AUTHENTICATED_API_ENABLED;
  const limiterRedis = config.HOOK_TEST_RATE_LIMIT > 0 || config.HOOK_RESEND_RATE_LIMIT > 0 || apiThrottles
    ? new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  limiterRedis?.on('error', () => undefined);
  const hookRateLimits = new HookRateLimits(limiterRedis, { test: config.HOOK_TEST_RATE_LIMIT, resend: config.HOOK_RESEND_RATE_LIMIT }, config.RATE_LIMIT_KEY_PREFIX);
  const apiRateLimits = apiThrottles ? new ApiRateLimits(limiterRedis, {
    unauthenticated: {
      enabled: config.THROTTLE_UNAUTHENTICATED_API_ENABLED,
      requestsPerPeriod: config.THROTTLE_UNAUTHENTICATED_API_REQUESTS_PER_PERIOD,
      periodInSeconds: config.THROTTLE_UNAUTHENTICATED_API_PERIOD_IN_SECONDS,
    },
    authenticated: {
      enabled: config.THROTTLE_AUTHENTICATED_API_ENABLED,
      requestsPerPeriod: config.THROTTLE_AUTHENTICATED_API_REQUESTS_PER_PERIOD,
      periodInSeconds: config.THROTTLE_AUTHENTICATED_API_PERIOD_IN_SECONDS,
    },
  }, config.RATE_LIMIT_KEY_PREFIX) : undefined;
  // One repo-admin per storage (repository_storage); calls go to the shard of their project (repo-admin-router.ts).
  const shards = new Map(parseShards({ grpcAddr: config.REPO_ADMIN_GRPC_ADDR, httpUrl: config.REPO_ADMIN_HTTP_URL }, config.REPO_ADMIN_STORAGES).map((a) => {
    const client = createGrpcClient(repoAdminV1.RepoAdminServiceClient, a.grpcAddr, opts);
    return [a.storage, {
      address: a, client, streams: createRepoAdminStreams(client.raw, config.ACTOR_SECRET), uploads: createUploadStreams(client.raw, config.ACTOR_SECRET),
    }] as const;
  }));
  const router = new RepoAdminRouter(shards, projects);
  return {
    identity,
    projects,
    projectBytes,
    presentedProjects: new PresentedJsonCache(config.PRESENTED_JSON_CACHE_BYTES),
    projectReads: new ProjectReadBatcher(projectBytes, { windowMs: config.PROJECT_READ_BATCH_WINDOW_MS, maxBatch: config.PROJECT_READ_BATCH_MAX }),
    accessRequests,
    hooks,
    pushRules,
    hookRateLimits,
    apiRateLimits,
    repoAdmin: router.routed((s) => s.client),
    repoAdminStreams: router.routed((s) => s.streams),
    uploads: router.routed((s) => s.uploads),
    repoAdminHttpUrl: (storage) => router.shard(storage).address.httpUrl,
    close() {
      identity.close();
      projects.close();
      projectBytes.close();
      accessRequests.close();
      hooks.close();
      pushRules.close();
      limiterRedis?.disconnect();
      for (const s of shards.values()) s.client.close();
    },
  };
}
