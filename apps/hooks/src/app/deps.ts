import type { Pool } from '@glp/db';
import type { identityV1, projectsV1, webhookDispatcherV1 } from '@glp/proto';
import type { SecretBox } from '@glp/secret-box';
import { systemActor, type PromiseClient } from '@glp/service-kit';

export type ProjectsClient = Pick<PromiseClient<projectsV1.ProjectsServiceClient>, 'getProject'>;
export type IdentityClient = Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getApplicationSettings'>;
export type DispatcherClient = Pick<PromiseClient<webhookDispatcherV1.WebhookDispatcherServiceClient>, 'executeTest' | 'listDeliveries' | 'resendDelivery'>;

export interface HooksDeps {
  pool: Pool;
  projects: ProjectsClient;
  identity: IdentityClient;
  dispatcher: DispatcherClient;
  /** Seals tokens, URLs, url variables and custom headers at rest. */
  secretBox: SecretBox;
  /** The hooks topic (HookUpdated, HookDeleted). */
  topic: string;
  /** GitLab's `project_hooks` plan limit: hooks a project may have (0: no limit); default 100. */
  projectHooksLimit?: number;
  /** Every address of a host (injectable for tests); default: DNS within 15 s. */
  resolve?: (host: string) => Promise<string[]>;
}

/** How this service calls the others (identity's settings, the dispatcher). */
export const SERVICE_ACTOR = systemActor('hooks');
