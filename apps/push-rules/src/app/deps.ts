import type { Pool } from '@glp/db';
import type { identityV1, projectsV1 } from '@glp/proto';
import { systemActor, type PromiseClient } from '@glp/service-kit';

export type ProjectsClient = Pick<PromiseClient<projectsV1.ProjectsServiceClient>, 'getProject'>;
export type IdentityClient = Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getUser' | 'findUsersByEmails'>;

export interface PushRulesDeps {
  pool: Pool;
  projects: ProjectsClient;
  identity: IdentityClient;
}

/** How this service calls identity (the pusher's user, the users of commit emails). */
export const SERVICE_ACTOR = systemActor('push-rules');
