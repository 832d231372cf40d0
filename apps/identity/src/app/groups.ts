import { isUniqueViolation, withTransaction, type Pool } from '@glp/db';
import { forbidden, invalid, notFound, type Actor, type FieldErrors } from '@glp/service-kit';
import { ACCESS } from '../domain/access-levels';
import { canAdminGroup, canCreateSubgroup, canCreateTopLevelGroup, canReadGroup, type Caller } from '../domain/group-policy';
import { DEFAULT_GROUP_VISIBILITY, groupErrors, isVisibility, type Visibility } from '../domain/group-rules';
import type { GroupAccessInvalidator } from '../events/group-access-invalidator';
import { recordGroupMembershipChanged, recordNamespaceChanged, recordNamespaceDeleted } from '../events/identity-events';
import { insertMember } from '../store/group-members-store';
import {
  deleteGroupTree, findGroupFor, fullPathTaken, insertGroup, listGroups as listGroupRows, mostPublicSubgroupVisibility,
  groupFacts, namespacesByIds, updateGroup as updateGroupRow, type GroupRow, type Selector,
} from '../store/groups-store';
import { callerId, loadCaller } from './caller';

export interface GroupsDeps {
  pool: Pool;
  topic: string;
  /** Listings are counted up to this; beyond, the total is -1. */
  countLimit: number;
  /** Told, after the commit, whose group levels a change altered (projects keeps them for a few seconds). */
  groupAccess: GroupAccessInvalidator;
}

const TAKEN = 'has already been taken';

function visibilityOf(v: string | undefined, fallback: Visibility): Visibility {
  if (v === undefined || v === '') return fallback;
  if (!isVisibility(v)) throw invalid({ visibility_level: ['is not included in the list'] });
  return v;
}

/** A group the caller may read, else NOT_FOUND "Group" (GitLab never reveals a hidden group). */
export async function readableGroup(pool: Pool, caller: Caller, sel: Selector): Promise<GroupRow> {
  const group = await findGroupFor(pool, callerId(caller.actor), sel);
  if (!group || !canReadGroup(caller, groupFacts(group))) throw notFound('Group');
  return group;
}

export interface NewGroupInput {
  name: string;
  path: string;
  description: string;
  visibility: string;
  requestAccessEnabled?: boolean;
  parentId: number;
}

/**
 * POST /groups: a top-level group (the user's `can_create_group`) or a subgroup (maintainer of a readable parent).
 * The creator becomes its Owner. Validation errors come back as field errors (the gateway words them as GitLab does).
 */
export async function createGroup(deps: GroupsDeps, actor: Actor, input: NewGroupInput): Promise<GroupRow> {
  const caller = await loadCaller(deps.pool, actor);
  if (actor.kind === 'anonymous') throw forbidden();
  let parent: GroupRow | undefined;
  if (input.parentId) {
    parent = await readableGroup(deps.pool, caller, { id: input.parentId });
    if (!canCreateSubgroup(caller, groupFacts(parent))) throw forbidden();
  } else if (!canCreateTopLevelGroup(caller, caller.canCreateGroup)) {
    throw forbidden();
  }
  const visibility = visibilityOf(input.visibility, DEFAULT_GROUP_VISIBILITY);
  const errors: FieldErrors = groupErrors({ name: input.name, path: input.path, visibility }, { parentVisibility: parent?.visibility });
  const fullPath = parent ? `${parent.full_path}/${input.path}` : input.path;
  if (!errors.path && (await fullPathTaken(deps.pool, fullPath))) errors.path = [TAKEN];
  if (Object.keys(errors).length) throw invalid(errors);
  let created: GroupRow;
  try {
    created = await withTransaction(deps.pool, async (client) => {
      const group = await insertGroup(client, {
        name: input.name, path: input.path, description: input.description, visibility,
        requestAccessEnabled: input.requestAccessEnabled ?? true, parentId: parent?.id ?? null,
      });
      await recordNamespaceChanged(client, deps.topic, group, undefined, actor);
      if (actor.kind === 'user') {
        await insertMember(client, { groupId: group.id, userId: actor.id, accessLevel: ACCESS.OWNER, expiresAt: null, createdById: actor.id });
        await recordGroupMembershipChanged(client, deps.topic, { groupId: group.id, userId: actor.id, accessLevel: ACCESS.OWNER, expiresAt: null }, actor);
        return { ...group, caller_access: ACCESS.OWNER };
      }
      return group;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw invalid({ path: [TAKEN] }); // a concurrent create took the path first
    throw err;
  }
  // A subgroup is inherited by its ancestors' members; a top-level group is its creator's alone.
  if (parent) await deps.groupAccess.changed({ all: true });
  else if (actor.kind === 'user') await deps.groupAccess.changed({ users: [actor.id] });
  return created;
}

export async function getGroup(pool: Pool, actor: Actor, sel: Selector): Promise<GroupRow> {
  return readableGroup(pool, await loadCaller(pool, actor), sel);
}

export interface ListGroupsInput {
  search: string;
  owned: boolean;
  minAccessLevel: number;
  topLevelOnly: boolean;
  skipGroups: number[];
  allAvailable?: boolean;
  orderBy: string;
  sort: string;
  page: number;
  perPage: number;
  parentId: number;
  visibility: string;
}

/** GET /groups and /groups/:id/subgroups, answered for the caller (GitLab's GroupsFinder as lib/api/groups.rb calls it). */
export async function listGroups(deps: GroupsDeps, actor: Actor, input: ListGroupsInput): Promise<{ rows: GroupRow[]; total: number }> {
  const caller = await loadCaller(deps.pool, actor);
  if (input.parentId) await readableGroup(deps.pool, caller, { id: input.parentId });
  const signedIn = actor.kind === 'user';
  const allAvailable = input.allAvailable ?? actor.admin;
  const scope = actor.admin && allAvailable ? 'all' : !signedIn || allAvailable || input.parentId ? 'readable' : 'member';
  return listGroupRows(deps.pool, {
    callerId: callerId(actor),
    scope,
    seesInternal: signedIn && !caller.external,
    search: input.search,
    ownedOnly: signedIn && input.owned,
    minAccessLevel: signedIn ? input.minAccessLevel : 0,
    topLevelOnly: input.topLevelOnly,
    skipIds: input.skipGroups,
    parentId: input.parentId,
    visibility: input.visibility,
    kind: 'group',
    includeOwnNamespace: false,
    orderBy: input.orderBy === 'id' || input.orderBy === 'path' ? input.orderBy : 'name',
    sort: input.sort === 'desc' ? 'desc' : 'asc',
    limit: input.perPage,
    offset: (input.page - 1) * input.perPage,
    countLimit: deps.countLimit,
  });
}

export interface GroupChange {
  name?: string;
  path?: string;
  description?: string;
  visibility?: string;
  requestAccessEnabled?: boolean;
}

/** PUT /groups/:id: owners; a new path or name moves every descendant's full path/name with it (and tells everyone). */
export async function updateGroup(deps: GroupsDeps, actor: Actor, sel: Selector, change: GroupChange): Promise<GroupRow> {
  const caller = await loadCaller(deps.pool, actor);
  try {
    return await withTransaction(deps.pool, async (client) => {
      const group = await findGroupFor(client, callerId(actor), sel, true);
      if (!group || !canReadGroup(caller, groupFacts(group))) throw notFound('Group');
      if (!canAdminGroup(caller, groupFacts(group))) throw forbidden();
      const next = {
        name: change.name ?? group.name,
        path: change.path ?? group.path,
        description: change.description ?? group.description,
        visibility: visibilityOf(change.visibility, group.visibility),
        requestAccessEnabled: change.requestAccessEnabled ?? group.request_access_enabled,
      };
      const parent = group.parent_id ? await findGroupFor(client, 0, { id: group.parent_id }) : undefined;
      const errors = groupErrors(next, {
        parentVisibility: parent?.visibility,
        mostPublicChild: next.visibility !== group.visibility ? await mostPublicSubgroupVisibility(client, group.id) : undefined,
      });
      if (!errors.path && next.path !== group.path) {
        const fullPath = (parent ? `${parent.full_path}/` : '') + next.path;
        if (await fullPathTaken(client, fullPath, group.id)) errors.path = [TAKEN];
      }
      if (Object.keys(errors).length) throw invalid(errors);
      const changedIds = await updateGroupRow(client, group, next);
      const changed = await namespacesByIds(client, changedIds);
      for (const ns of changed) await recordNamespaceChanged(client, deps.topic, ns, undefined, actor);
      return { ...changed.find((ns) => ns.id === group.id)!, caller_access: group.caller_access };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw invalid({ path: [TAKEN] });
    throw err;
  }
}

/** DELETE /groups/:id: owners; the group, its subgroups and all their memberships, each deletion an event. */
export async function deleteGroup(deps: GroupsDeps, actor: Actor, sel: Selector): Promise<void> {
  const caller = await loadCaller(deps.pool, actor);
  await withTransaction(deps.pool, async (client) => {
    const group = await findGroupFor(client, callerId(actor), sel, true);
    if (!group || !canReadGroup(caller, groupFacts(group))) throw notFound('Group');
    if (!canAdminGroup(caller, groupFacts(group))) throw forbidden();
    for (const ns of await deleteGroupTree(client, group.id)) await recordNamespaceDeleted(client, deps.topic, ns, actor);
  });
  await deps.groupAccess.changed({ all: true }); // every member of the tree, direct or inherited
}
