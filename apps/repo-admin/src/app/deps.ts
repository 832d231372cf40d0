import type { Pool } from '@glp/db';
import type { identityV1 } from '@glp/proto';
import type { Logger, PromiseClient } from '@glp/service-kit';
import type { GitRunner } from '../disk/bare-repository';

export interface RepoAdminDeps {
  pool: Pool;
  /** Who made a commit (the README's author): identity's users, read as this service. */
  identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getUser'>;
  /** Topic of this service's events. */
  topic: string;
  git: GitRunner;
  /** Absolute storage root of this replica, and the shard name it serves. */
  storageRoot: string;
  storage: string;
  logger: Logger;
  jobLeaseMs: number;
  jobMaxAttempts: number;
}
