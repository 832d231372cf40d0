import type { Pool, PoolClient } from '@glp/db';
import type { GroupFacts } from '../domain/group-policy';
import type { Visibility } from '../domain/group-rules';

type Queryable = Pool | PoolClient;

/** A namespace with the group columns and the caller's access facts (see `factsOf`). */
export interface GroupRow {
  id: number;
  name: string;
  path: string;
  kind: 'user' | 'group';
  parent_id: number | null;
  owner_id: number | null;
  version: number;
  full_path: string;
  full_name: string;
  description: string;
  visibility: Visibility;
  request_access_enabled: boolean;
  created_at: Date;
  /** The caller's highest unexpired membership level in the namespace or an ancestor (0 none). */
  caller_access: number;
  /** The caller has an unexpired membership in a namespace strictly below this one. */
  caller_in_descendant: boolean;
  /** YYYY-MM-DD the group itself was marked for deletion (GitLab's deletion schedule); null when it is not. */
  marked_for_deletion_on: string | null;
  /** The group or one of its ancestors is marked for deletion (what projects' `active` filter asks). */
  self_or_ancestor_marked: boolean;
}

const ACTIVE = '(gm.expires_at IS NULL OR gm.expires_at > current_date)';

/** Columns of `namespaces n` plus the facts about the caller `$1` (a user id; 0 for nobody). Each fact is one indexed probe. */
const GROUP_COLUMNS = `n.id, n.name, n.path, n.kind, n.parent_id, n.owner_id, n.version, n.full_path, n.full_name, n.description,
  n.visibility, n.request_access_enabled, n.created_at,
  to_char(n.marked_for_deletion_on, 'YYYY-MM-DD') AS marked_for_deletion_on,
  EXISTS (SELECT 1 FROM namespaces a WHERE a.id = ANY(n.traversal_ids) AND a.marked_for_deletion_on IS NOT NULL) AS self_or_ancestor_marked,
  COALESCE((SELECT max(gm.access_level) FROM group_members gm
            WHERE gm.user_id = $1 AND gm.group_id = ANY(n.traversal_ids) AND ${ACTIVE}), 0)::int AS caller_access,
  EXISTS (SELECT 1 FROM group_members gm JOIN namespaces d ON d.id = gm.group_id
          WHERE gm.user_id = $1 AND d.id <> n.id AND d.traversal_ids @> ARRAY[n.id] AND ${ACTIVE}) AS caller_in_descendant`;

export type Selector = { id: number } | { fullPath: string };

function where(sel: Selector): { clause: string; value: number | string } {
  return 'id' in sel ? { clause: 'n.id = $2', value: sel.id } : { clause: 'lower(n.full_path) = lower($2)', value: sel.fullPath };
}

/** A namespace of any kind, with the caller's facts. */
export async function findNamespaceFor(db: Queryable, callerId: number, sel: Selector): Promise<GroupRow | undefined> {
  const w = where(sel);
  const { rows } = await db.query<GroupRow>(`SELECT ${GROUP_COLUMNS} FROM namespaces n WHERE ${w.clause}`, [callerId, w.value]);
  return rows[0];
}

/** A group (kind 'group'), with the caller's facts; `forUpdate` locks its row. */
export async function findGroupFor(db: Queryable, callerId: number, sel: Selector, forUpdate = false): Promise<GroupRow | undefined> {
  const w = where(sel);
  const { rows } = await db.query<GroupRow>(
    `SELECT ${GROUP_COLUMNS} FROM namespaces n WHERE ${w.clause} AND n.kind = 'group'${forUpdate ? ' FOR UPDATE OF n' : ''}`,
    [callerId, w.value],
  );
  return rows[0];
}

export async function insertGroup(
  db: PoolClient,
  g: { name: string; path: string; description: string; visibility: Visibility; requestAccessEnabled: boolean; parentId: number | null },
): Promise<GroupRow> {
  const { rows } = await db.query<GroupRow>(
    `WITH new_id AS (SELECT nextval(pg_get_serial_sequence('namespaces', 'id')) AS id),
          parent AS (SELECT traversal_ids, full_path, full_name FROM namespaces WHERE id = $6),
          n AS (
       INSERT INTO namespaces (id, name, path, kind, parent_id, description, visibility, request_access_enabled,
                               full_path, full_name, traversal_ids)
       SELECT new_id.id, $1, $2, 'group', $6, $3, $4, $5,
              COALESCE((SELECT full_path FROM parent) || '/', '') || $2,
              COALESCE((SELECT full_name FROM parent) || ' / ', '') || $1,
              COALESCE((SELECT traversal_ids FROM parent), '{}') || new_id.id
       FROM new_id
       RETURNING *)
     SELECT n.id, n.name, n.path, n.kind, n.parent_id, n.owner_id, n.version, n.full_path, n.full_name, n.description,
            n.visibility, n.request_access_enabled, n.created_at, 0 AS caller_access, false AS caller_in_descendant,
            NULL AS marked_for_deletion_on,
            EXISTS (SELECT 1 FROM namespaces a WHERE a.id = ANY(n.traversal_ids) AND a.marked_for_deletion_on IS NOT NULL) AS self_or_ancestor_marked
     FROM n`,
    [g.name, g.path, g.description, g.visibility, g.requestAccessEnabled, g.parentId],
  );
  return rows[0]!;
}

/** Whether a full path is taken by any namespace (users and groups share the URL space). */
export async function fullPathTaken(db: Queryable, fullPath: string, exceptId = 0): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM namespaces WHERE lower(full_path) = lower($1) AND id <> $2', [fullPath, exceptId]);
  return rows.length > 0;
}

/** The most public visibility among the group's subgroups (undefined when it has none). */
export async function mostPublicSubgroupVisibility(db: Queryable, groupId: number): Promise<Visibility | undefined> {
  const { rows } = await db.query<{ visibility: Visibility }>(
    `SELECT visibility FROM namespaces WHERE traversal_ids @> ARRAY[$1::bigint] AND id <> $1
     ORDER BY CASE visibility WHEN 'public' THEN 0 WHEN 'internal' THEN 1 ELSE 2 END LIMIT 1`,
    [groupId],
  );
  return rows[0]?.visibility;
}

/**
 * Applies a change to a group and keeps its descendants' full_path / full_name in step (one statement each).
 * Returns the ids of every namespace whose record changed (the group and, on a rename or move, its descendants).
 */
export async function updateGroup(
  db: PoolClient,
  group: GroupRow,
  change: { name: string; path: string; description: string; visibility: Visibility; requestAccessEnabled: boolean },
): Promise<number[]> {
  const parent = group.parent_id ? group.full_path.slice(0, group.full_path.length - group.path.length) : '';
  const parentName = group.parent_id ? group.full_name.slice(0, group.full_name.length - group.name.length) : '';
  const fullPath = parent + change.path;
  const fullName = parentName + change.name;
  await db.query(
    `UPDATE namespaces SET name = $2, path = $3, description = $4, visibility = $5, request_access_enabled = $6,
       full_path = $7, full_name = $8, version = version + 1, updated_at = now() WHERE id = $1`,
    [group.id, change.name, change.path, change.description, change.visibility, change.requestAccessEnabled, fullPath, fullName],
  );
  if (fullPath === group.full_path && fullName === group.full_name) return [group.id];
  const { rows } = await db.query<{ id: number }>(
    `UPDATE namespaces SET full_path = $2 || substr(full_path, $4), full_name = $3 || substr(full_name, $5),
       version = version + 1, updated_at = now()
     WHERE traversal_ids @> ARRAY[$1::bigint] AND id <> $1 RETURNING id`,
    [group.id, fullPath, fullName, group.full_path.length + 1, group.full_name.length + 1],
  );
  return [group.id, ...rows.map((r) => r.id)];
}

/** Deletes the group and every subgroup (memberships cascade); returns what was deleted, deepest first. */
export async function deleteGroupTree(db: PoolClient, groupId: number): Promise<{ id: number; full_path: string }[]> {
  const { rows } = await db.query<{ id: number; full_path: string }>(
    `DELETE FROM namespaces WHERE traversal_ids @> ARRAY[$1::bigint] RETURNING id, full_path`,
    [groupId],
  );
  return rows.sort((a, b) => b.full_path.length - a.full_path.length);
}

/**
 * Puts the group on the deletion schedule today (GitLab's group_deletion_schedules row); the day (YYYY-MM-DD), or
 * nothing when it was already marked (a concurrent DELETE won).
 */
export async function markGroupForDeletion(db: PoolClient, groupId: number, userId: number | null): Promise<string | undefined> {
  const { rows } = await db.query<{ on: string }>(
    `UPDATE namespaces SET marked_for_deletion_on = current_date, deleting_user_id = $2, version = version + 1, updated_at = now()
     WHERE id = $1 AND kind = 'group' AND marked_for_deletion_on IS NULL RETURNING to_char(marked_for_deletion_on, 'YYYY-MM-DD') AS on`,
    [groupId, userId],
  );
  return rows[0]?.on;
}

/** Takes the group off the deletion schedule; whether it was on it. */
export async function unmarkGroupForDeletion(db: PoolClient, groupId: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE namespaces SET marked_for_deletion_on = NULL, deleting_user_id = NULL, version = version + 1, updated_at = now()
     WHERE id = $1 AND marked_for_deletion_on IS NOT NULL`,
    [groupId],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Groups marked at least `periodDays` days ago (GitLab's AdjournedGroupDeletionWorker), oldest first, locked for this
 * replica (others skip them). Uses namespaces_marked_for_deletion_idx.
 */
export async function lockDueGroups(db: PoolClient, periodDays: number, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT id FROM namespaces WHERE marked_for_deletion_on <= current_date - $1::int
     ORDER BY marked_for_deletion_on, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [periodDays, limit],
  );
  return rows.map((r) => Number(r.id));
}

/** Rows of namespaces by id, plain (for events after a change). */
export async function namespacesByIds(db: Queryable, ids: number[]): Promise<GroupRow[]> {
  const { rows } = await db.query<GroupRow>(`SELECT ${GROUP_COLUMNS} FROM namespaces n WHERE n.id = ANY($2::bigint[])`, [0, ids]);
  return rows;
}

export interface GroupListFilter {
  callerId: number;
  /** `all`: every group (administrators); `readable`: what the caller may read; `member`: the caller's groups. */
  scope: 'all' | 'readable' | 'member';
  /** Signed-in and not external: internal groups are readable. */
  seesInternal: boolean;
  search: string;
  ownedOnly: boolean;
  minAccessLevel: number;
  topLevelOnly: boolean;
  skipIds: number[];
  parentId: number;
  visibility: string;
  kind: 'group' | 'any';
  /** The caller's personal namespace joins the answer (GET /namespaces). */
  includeOwnNamespace: boolean;
  orderBy: 'name' | 'path' | 'id';
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
  countLimit: number;
}

/**
 * One page of groups (or namespaces) with the caller's facts, and the count (capped at countLimit; -1 beyond).
 * `member` scope: the caller has unexpired access to the group or an ancestor; `readable` adds public (and internal)
 * groups and the ancestors of groups the caller belongs to.
 */
export async function listGroups(db: Queryable, f: GroupListFilter): Promise<{ rows: GroupRow[]; total: number }> {
  const params: unknown[] = [f.callerId];
  const bind = (v: unknown) => `$${params.push(v)}`;
  const conds: string[] = [];
  // Access through a membership of the group or an ancestor; or a membership below it (which makes it readable).
  const member = `EXISTS (SELECT 1 FROM group_members gm WHERE gm.user_id = $1 AND gm.group_id = ANY(n.traversal_ids) AND ${ACTIVE})`;
  const below = `EXISTS (SELECT 1 FROM group_members gm JOIN namespaces d ON d.id = gm.group_id
               WHERE gm.user_id = $1 AND d.traversal_ids @> ARRAY[n.id] AND ${ACTIVE})`;
  const groupScope =
    f.scope === 'all' ? 'true'
    : f.scope === 'member' ? member
    : `(n.visibility = 'public'${f.seesInternal ? ` OR n.visibility = 'internal'` : ''} OR ${member} OR ${below})`;
  if (f.kind === 'group') conds.push(`n.kind = 'group' AND ${groupScope}`);
  else if (f.includeOwnNamespace && f.scope !== 'all') conds.push(`((n.kind = 'group' AND ${groupScope}) OR (n.kind = 'user' AND n.owner_id = $1))`);
  else if (f.scope !== 'all') conds.push(`n.kind = 'group' AND ${groupScope}`);
  if (f.search) {
    const s = bind(`%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    conds.push(`(n.name ILIKE ${s} OR n.path ILIKE ${s})`);
  }
  if (f.ownedOnly) {
    conds.push(`(EXISTS (SELECT 1 FROM group_members gm WHERE gm.user_id = $1 AND gm.group_id = n.id AND gm.access_level = 50 AND ${ACTIVE})
                 OR (n.kind = 'user' AND n.owner_id = $1))`);
  }
  if (f.minAccessLevel > 0) {
    conds.push(`EXISTS (SELECT 1 FROM group_members gm WHERE gm.user_id = $1 AND gm.group_id = ANY(n.traversal_ids)
                        AND gm.access_level >= ${bind(f.minAccessLevel)} AND ${ACTIVE})`);
  }
  if (f.topLevelOnly) conds.push('n.parent_id IS NULL');
  if (f.skipIds.length) conds.push(`NOT (n.id = ANY(${bind(f.skipIds)}::bigint[]))`);
  if (f.parentId) conds.push(`n.parent_id = ${bind(f.parentId)}`);
  if (f.visibility) conds.push(`n.visibility = ${bind(f.visibility)}`);
  const whereSql = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  const dir = f.sort === 'desc' ? 'DESC' : 'ASC';
  const order = f.orderBy === 'id' ? `n.id ${dir}` : f.orderBy === 'path' ? `lower(n.path) ${dir}, n.id ${dir}` : `lower(n.name) ${dir}, n.id ${dir}`;
  const countParams = [...params];
  const page = await db.query<GroupRow>(
    `SELECT ${GROUP_COLUMNS} FROM namespaces n ${whereSql} ORDER BY ${order} LIMIT ${bind(f.limit)} OFFSET ${bind(f.offset)}`,
    params,
  );
  // `caller` binds $1 even when no condition uses it (administrators' listings), so the parameter list is the same.
  const counted = await db.query<{ n: number }>(
    `WITH caller(id) AS (SELECT $1::bigint)
     SELECT count(*)::int AS n FROM (SELECT 1 FROM namespaces n ${whereSql} LIMIT ${f.countLimit + 1}) c`,
    countParams,
  );
  const total = counted.rows[0]!.n;
  return { rows: page.rows, total: total > f.countLimit ? -1 : total };
}

/** The facts a permission decision needs (domain/group-policy), from a row. */
export function groupFacts(g: GroupRow): GroupFacts {
  return { visibility: g.visibility, callerAccess: g.caller_access, callerInDescendant: g.caller_in_descendant };
}
