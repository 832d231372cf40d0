import { isUniqueViolation, withTransaction, type Pool, type PoolClient } from '@glp/db';
import {
  forbidden, invalid, notFound, originalIdentifiers, randomAlphanumeric, rejected, restoredIdentifiers, scheduledIdentifier, startPeriodicTask, systemActor,
  type Actor, type FieldErrors, type Logger,
} from '@glp/service-kit';
import { ACCESS } from '../domain/access-levels';
import { canAdminGroup, canCreateSubgroup, canCreateTopLevelGroup, canReadGroup, type Caller } from '../domain/group-policy';
import { decideGroupDeletion, restoreRefusal } from '../domain/group-deletion-rules';
import { DEFAULT_GROUP_VISIBILITY, groupErrors, isVisibility, type Visibility } from '../domain/group-rules';
import type { GroupAccessInvalidator } from '../events/group-access-invalidator';
import { recordGroupMembershipChanged, recordNamespaceChanged, recordNamespaceDeleted } from '../events/identity-events';
import { insertMember } from '../store/group-members-store';
import {
  deleteGroupTree, findGroupFor, fullPathTaken, insertGroup, listGroups as listGroupRows, lockDueGroups, markGroupForDeletion,
  mostPublicSubgroupVisibility, groupFacts, namespacesByIds, unmarkGroupForDeletion, updateGroup as updateGroupRow, type GroupRow, type Selector,
} from '../store/groups-store';
import { findApplicationSettings } from '../store/application-settings-store';
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

/** Group validation errors as one sentence (GitLab's `errors.full_messages.to_sentence`), for a refused rename. */
function fullMessages(errors: FieldErrors): string {
  return Object.entries(errors).flatMap(([field, msgs]) => msgs.map((m) => `${field[0]!.toUpperCase()}${field.slice(1)} ${m}`)).join(', ');
}

/**
 * Renames a group (and moves its descendants' full paths) in the caller's transaction, then outboxes NamespaceChanged
 * for each namespace whose record changed; the group's row afterwards.
 */
async function renameGroup(
  deps: GroupsDeps, client: PoolClient, group: GroupRow, to: { name: string; path: string }, actor: Actor,
): Promise<GroupRow> {
  const errors = groupErrors({ name: to.name, path: to.path, visibility: group.visibility }, {});
  if (Object.keys(errors).length) throw rejected(fullMessages(errors));
  const changedIds = await updateGroupRow(client, group, {
    name: to.name, path: to.path, description: group.description, visibility: group.visibility, requestAccessEnabled: group.request_access_enabled,
  });
  const changed = await namespacesByIds(client, changedIds);
  for (const ns of changed) await recordNamespaceChanged(client, deps.topic, ns, undefined, actor);
  return { ...changed.find((ns) => ns.id === group.id)!, caller_access: group.caller_access };
}

/** The group for a deletion or restore: readable (else NOT_FOUND), the caller an Owner or administrator (`remove_group`). */
async function removableGroup(client: PoolClient, caller: Caller, sel: Selector): Promise<GroupRow> {
  const group = await findGroupFor(client, callerId(caller.actor), sel, true);
  if (!group || !canReadGroup(caller, groupFacts(group))) throw notFound('Group');
  if (!canAdminGroup(caller, groupFacts(group))) throw forbidden();
  return group;
}

/** Removes the group tree now (memberships cascade), each namespace with NamespaceDeleted, so projects etc. follow. */
async function removeGroupTree(deps: GroupsDeps, client: PoolClient, groupId: number, actor: Actor): Promise<void> {
  for (const ns of await deleteGroupTree(client, groupId)) await recordNamespaceDeleted(client, deps.topic, ns, actor);
}

/**
 * DELETE /groups/:id (Owners, administrators), as GitLab 18 does on every tier: the group is marked for deletion
 * (`marked_for_deletion_on` today, renamed `<name>-deletion_scheduled-<id>` / `<path>-deletion_scheduled-<id>` so its
 * path is free; descendants move with it) and the removal worker deletes it once `deletion_adjourned_period` has
 * passed. `permanently_remove` + its exact (renamed) `full_path` removes a marked group, its subgroups and their
 * memberships at once, each deletion an event (projects deletes their projects).
 */
export async function deleteGroup(
  deps: GroupsDeps, actor: Actor, sel: Selector, req: { permanentlyRemove: boolean; fullPath: string },
): Promise<{ marked: boolean }> {
  const caller = await loadCaller(deps.pool, actor);
  const marked = await withTakenPath(() => withTransaction(deps.pool, async (client) => {
    const group = await removableGroup(client, caller, sel);
    const decision = decideGroupDeletion({ marked: group.marked_for_deletion_on !== null, fullPath: group.full_path }, req);
    if (decision.kind === 'refuse') throw rejected(decision.message);
    if (decision.kind === 'delete') {
      await removeGroupTree(deps, client, group.id, actor);
      return false;
    }
    if (!(await markGroupForDeletion(client, group.id, actor.kind === 'user' ? actor.id : null))) {
      throw rejected('Group has been already marked for deletion');
    }
    await renameGroup(deps, client, group, { name: scheduledIdentifier(group.name, group.id), path: scheduledIdentifier(group.path, group.id) }, actor);
    return true;
  }));
  if (!marked) await deps.groupAccess.changed({ all: true }); // every member of the tree, direct or inherited
  return { marked };
}

/**
 * POST /groups/:id/restore (Owners, administrators): off the deletion schedule, its name and path taken back (with a
 * random suffix when another namespace took the path meanwhile, as GitLab's Groups::RestoreService).
 */
export async function restoreGroup(deps: GroupsDeps, actor: Actor, sel: Selector): Promise<GroupRow> {
  const caller = await loadCaller(deps.pool, actor);
  return withTakenPath(() => withTransaction(deps.pool, async (client) => {
    const group = await removableGroup(client, caller, sel);
    const refusal = restoreRefusal({ marked: group.marked_for_deletion_on !== null });
    if (refusal) throw rejected(refusal);
    const original = originalIdentifiers(group);
    const parentPrefix = group.full_path.slice(0, group.full_path.length - group.path.length);
    const taken = await fullPathTaken(client, parentPrefix + original.path, group.id);
    const restored = restoredIdentifiers(group, { name: false, path: taken }, randomAlphanumeric(5));
    await unmarkGroupForDeletion(client, group.id);
    return renameGroup(deps, client, group, restored, actor);
  }));
}

/** A concurrent create or rename took the path first: the unique index speaks, as GitLab's validation would. */
async function withTakenPath<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw rejected(`Path ${TAKEN}`);
    throw err;
  }
}

const SERVICE = systemActor('identity');

/**
 * Removes the groups marked `deletion_adjourned_period` days ago or more (GitLab's AdjournedGroupDeletionWorker), read
 * from identity's own application settings on every round so a change applies to groups already marked. Each goes
 * through the same removal as `permanently_remove` (NamespaceDeleted per namespace); how many were removed.
 */
export async function removeDueGroups(deps: GroupsDeps, batch = 50): Promise<number> {
  const settings = await findApplicationSettings(deps.pool);
  if (!settings) return 0; // not seeded yet: nothing is due before the settings exist
  const removed = await withTransaction(deps.pool, async (client) => {
    const due = await lockDueGroups(client, settings.deletion_adjourned_period, batch);
    // A due subgroup of a due group goes with it: its own removal then finds nothing.
    for (const id of due) await removeGroupTree(deps, client, id, SERVICE);
    return due.length;
  });
  if (removed) await deps.groupAccess.changed({ all: true });
  return removed;
}

/** Runs `removeDueGroups` every `intervalMs` until stopped; failures are logged and retried. */
export function startGroupRemoval(deps: GroupsDeps, logger: Logger, intervalMs: number): { stop(): Promise<void> } {
  return startPeriodicTask('group removal', () => removeDueGroups(deps).then((n) => n && logger.info({ removed: n }, 'removed groups marked for deletion')), logger, intervalMs);
}
