import { accessRequestsV1, identityV1, projectsV1 } from '@glp/proto';
import { createGrpcClient, type PromiseClient } from '@glp/service-kit';
import type { GatewayConfig } from './config';

export interface Services {
  identity: PromiseClient<identityV1.IdentityServiceClient>;
  projects: PromiseClient<projectsV1.ProjectsServiceClient>;
  accessRequests: PromiseClient<accessRequestsV1.AccessRequestsServiceClient>;
  close(): void;
}

export function createServices(config: GatewayConfig): Services {
  const opts = { actorSecret: config.ACTOR_SECRET, defaultDeadlineMs: config.GRPC_DEADLINE_MS };
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, opts);
  const projects = createGrpcClient(projectsV1.ProjectsServiceClient, config.PROJECTS_GRPC_ADDR, opts);
  const accessRequests = createGrpcClient(accessRequestsV1.AccessRequestsServiceClient, config.ACCESS_REQUESTS_GRPC_ADDR, opts);
  return {
    identity,
    projects,
    accessRequests,
    close() {
      identity.close();
      projects.close();
      accessRequests.close();
    },
  };
}
