import type { Pool } from 'pg';
import type { hooksV1, identityV1, projectsV1, repoAdminV1 } from '@glp/proto';
import { systemActor, type Logger, type PromiseClient } from '@glp/service-kit';
import type { DisablePolicy } from '../domain/auto-disable';
import type { RetryPolicy } from '../domain/retry-schedule';
import type { WebhookSender } from './webhook-sender';

/** Every call this service makes to another is as itself. */
export const SERVICE_ACTOR = systemActor('webhook-dispatcher');

export interface DispatcherSettings {
  externalUrl: string;
  gitlabVersion: string;
  pushEventHooksLimit: number;
  retry: RetryPolicy;
  disable: DisablePolicy;
  leaseMs: number;
  logRetentionDays: number;
}

export interface DispatcherDeps {
  pool: Pool;
  hooks: Pick<PromiseClient<hooksV1.HooksServiceClient>, 'matchHooks' | 'getDeliveryTargets'>;
  projects: Pick<PromiseClient<projectsV1.ProjectsServiceClient>, 'getProject'>;
  repoAdmin: Pick<PromiseClient<repoAdminV1.RepoAdminServiceClient>, 'listCommits'>;
  identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getUser'>;
  sender: Pick<WebhookSender, 'send'>;
  /** Topic of this service's events (HookHealthChanged). */
  topic: string;
  settings: DispatcherSettings;
  logger: Logger;
}
