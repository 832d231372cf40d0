import type { Pool } from '@glp/db';
import type { identityV1 } from '@glp/proto';
import type { PromiseClient } from '@glp/service-kit';

/** What identity answers for projects: namespaces, users, and a user's access through groups. */
export type IdentityClient = Pick<
  PromiseClient<identityV1.IdentityServiceClient>,
  'getNamespace' | 'getUser' | 'getUserGroupAccess' | 'listGroupMembers'
>;

export interface ProjectsDeps {
  pool: Pool;
  identity: IdentityClient;
  /** Topic of this service's events. */
  topic: string;
  /** Listings are counted up to this; beyond, the total is -1. */
  countLimit: number;
}
