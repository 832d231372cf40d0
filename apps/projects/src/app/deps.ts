import type { SecretBox } from '@glp/secret-box';
import type { Pool } from '@glp/db';
import type { identityV1 } from '@glp/proto';
import type { PromiseClient } from '@glp/service-kit';
import type { GroupAccessCache } from '../cache/group-access-cache';
import type { ProjectPathHints } from '../cache/project-path-hints';

/** What identity answers for projects: namespaces, groups (their visibility), users, and a user's access through groups. */
export type IdentityClient = Pick<
  PromiseClient<identityV1.IdentityServiceClient>,
  'getNamespace' | 'getGroup' | 'getUser' | 'getUserGroupAccess' | 'listGroupMembers' | 'getApplicationSettings'
>;

export interface ProjectsDeps {
  pool: Pool;
  /**
   * Connections that keep PostgreSQL's generic plans (`plan_cache_mode = force_generic_plan`), for the listings whose
   * plan no value changes (plansAlikeForAnyValues) and only for them: every statement run on it is planned once per
   * connection, whatever its values. Absent: those listings use `pool` and are planned for their values every time.
   */
  genericPlanPool?: Pool;
  identity: IdentityClient;
  /** Users' group levels kept between requests (absent: identity is asked on every request that needs them). */
  groupAccessCache?: GroupAccessCache;
  /** Which project each path read by a batch named last time (absent: every batch looks its paths up). */
  pathHints?: ProjectPathHints;
  /** Topic of this service's events. */
  topic: string;
  /** Listings are counted up to this; beyond, the total is -1. */
  countLimit: number;
  /** Seals import URLs at rest (absent: imports are refused). */
  secretBox?: SecretBox;
  /** The storages a project may be created on (REPOSITORY_STORAGES; absent: only "default"). */
  repositoryStorages?: readonly string[];
  /** The outbound URL rules imports follow (GitLab's UrlBlocker settings). */
  importRules?: { allowLocalNetwork: boolean; allowlist: readonly string[] };
}
