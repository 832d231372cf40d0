import type { Pool } from '@glp/db';
import type { identityV1, projectsV1 } from '@glp/proto';
import type { PromiseClient } from '@glp/service-kit';

export type IdentityClient = Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getGroup' | 'getUser' | 'addGroupMember' | 'getGroupMember'>;
export type ProjectsClient = Pick<PromiseClient<projectsV1.ProjectsServiceClient>, 'getProject' | 'addProjectMember' | 'getProjectMember'>;

export interface AccessRequestsDeps {
  pool: Pool;
  identity: IdentityClient;
  projects: ProjectsClient;
  topic: string;
}
