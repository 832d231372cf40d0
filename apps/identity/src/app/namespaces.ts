import type { Pool } from '@glp/db';
import { notFound, type Actor } from '@glp/service-kit';
import { ACCESS } from '../domain/access-levels';
import { canReadNamespaceViaMembership } from '../domain/group-policy';
import { findNamespaceFor, groupFacts, listGroups, type GroupRow, type Selector } from '../store/groups-store';
import type { UserRow } from '../store/user-rows';
import { findUserById } from '../store/users-store';
import { callerId, loadCaller } from './caller';
import type { GroupsDeps } from './groups';

/**
 * A namespace the caller may see through membership (GitLab's `find_namespace!`): one's own personal namespace, a group
 * one has access to (directly or through an ancestor), anything for administrators. The caller's access level comes
 * with it: Owner (50) of one's own namespace and for administrators, else the effective group membership.
 */
export async function getNamespace(pool: Pool, actor: Actor, sel: Selector): Promise<{ ns: GroupRow; owner?: UserRow; callerAccess: number }> {
  const caller = await loadCaller(pool, actor);
  const ns = await findNamespaceFor(pool, callerId(actor), sel);
  if (!ns || !canReadNamespaceViaMembership(caller, { kind: ns.kind, ownerId: ns.owner_id }, groupFacts(ns))) throw notFound('Namespace');
  const own = ns.kind === 'user' && ns.owner_id === callerId(actor);
  const owner = ns.owner_id ? await findUserById(pool, ns.owner_id) : undefined;
  return { ns, owner, callerAccess: actor.admin || own ? ACCESS.OWNER : ns.caller_access };
}

export interface ListNamespacesInput {
  search: string;
  ownedOnly: boolean;
  topLevelOnly: boolean;
  page: number;
  perPage: number;
}

/** GET /namespaces: administrators every namespace; others their personal namespace and the groups they belong to. */
export async function listNamespaces(deps: GroupsDeps, actor: Actor, input: ListNamespacesInput): Promise<{ rows: GroupRow[]; total: number }> {
  return listGroups(deps.pool, {
    callerId: callerId(actor),
    scope: actor.admin ? 'all' : 'member',
    seesInternal: false,
    search: input.search,
    ownedOnly: input.ownedOnly,
    minAccessLevel: 0,
    topLevelOnly: input.topLevelOnly,
    skipIds: [],
    parentId: 0,
    visibility: '',
    kind: 'any',
    includeOwnNamespace: true,
    orderBy: 'id',
    sort: 'asc',
    limit: input.perPage,
    offset: (input.page - 1) * input.perPage,
    countLimit: deps.countLimit,
  });
}
