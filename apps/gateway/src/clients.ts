import { accessRequestsV1, identityV1, projectsV1, repoAdminV1 } from '@glp/proto';
import { createGrpcClient, type PromiseClient } from '@glp/service-kit';
import type { GatewayConfig } from './config';
import { createRepoAdminStreams, type RepoAdminStreams } from './repo-admin-streams';
import { createUploadStreams, type UploadStreams } from './upload-streams';

export interface Services {
  identity: PromiseClient<identityV1.IdentityServiceClient>;
  projects: PromiseClient<projectsV1.ProjectsServiceClient>;
  accessRequests: PromiseClient<accessRequestsV1.AccessRequestsServiceClient>;
  repoAdmin: PromiseClient<repoAdminV1.RepoAdminServiceClient>;
  /** repo-admin's server-streaming calls (snapshots). */
  repoAdminStreams: RepoAdminStreams;
  /** repo-admin's streaming calls of uploads and avatars. */
  uploads: UploadStreams;
  close(): void;
}

export function createServices(config: GatewayConfig): Services {
  const opts = { actorSecret: config.ACTOR_SECRET, defaultDeadlineMs: config.GRPC_DEADLINE_MS };
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, opts);
  const projects = createGrpcClient(projectsV1.ProjectsServiceClient, config.PROJECTS_GRPC_ADDR, opts);
  const accessRequests = createGrpcClient(accessRequestsV1.AccessRequestsServiceClient, config.ACCESS_REQUESTS_GRPC_ADDR, opts);
  const repoAdmin = createGrpcClient(repoAdminV1.RepoAdminServiceClient, config.REPO_ADMIN_GRPC_ADDR, opts);
  return {
    identity,
    projects,
    accessRequests,
    repoAdmin,
    repoAdminStreams: createRepoAdminStreams(repoAdmin.raw, config.ACTOR_SECRET),
    uploads: createUploadStreams(repoAdmin.raw, config.ACTOR_SECRET),
    close() {
      identity.close();
      projects.close();
      accessRequests.close();
      repoAdmin.close();
    },
  };
}
