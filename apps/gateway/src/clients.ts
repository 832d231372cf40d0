import { accessRequestsV1, identityV1, projectsV1, repoAdminV1 } from '@glp/proto';
import { createGrpcClient, type PromiseClient } from '@glp/service-kit';
import type { GatewayConfig } from './config';

export interface Services {
  identity: PromiseClient<identityV1.IdentityServiceClient>;
  projects: PromiseClient<projectsV1.ProjectsServiceClient>;
  accessRequests: PromiseClient<accessRequestsV1.AccessRequestsServiceClient>;
  repoAdmin: PromiseClient<repoAdminV1.RepoAdminServiceClient>;
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
    close() {
      identity.close();
      projects.close();
      accessRequests.close();
      repoAdmin.close();
    },
  };
}
