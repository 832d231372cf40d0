import type { Pool, PoolClient } from '@glp/db';
import { USER_COLUMNS, type UserRow } from './user-rows';

type Queryable = Pool | PoolClient;

export interface MemberRow {
  group_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  created_at: Date;
}

export interface MemberWithUser extends MemberRow {
  user: UserRow;
  /** Who added the member (null when unknown or deleted). */
  created_by: UserRow | null;
}

const MEMBER_COLUMNS = `gm.group_id, gm.user_id, gm.access_level, to_char(gm.expires_at, 'YYYY-MM-DD') AS expires_at, gm.created_by_id,
  gm.created_at`;
const userJson = (idColumn: string, as: string) => `(SELECT row_to_json(u) FROM (SELECT ${USER_COLUMNS} FROM users WHERE id = ${idColumn}) u) AS ${as}`;
const USER_JSON = `${userJson('gm.user_id', 'user')}, ${userJson('gm.created_by_id', 'created_by')}`;
const ACTIVE = '(gm.expires_at IS NULL OR gm.expires_at > current_date)';

type JsonRow = MemberRow & { user: Record<string, unknown>; created_by: Record<string, unknown> | null };

/** A user row as row_to_json gives it (timestamps as strings). */
function userFromJson(u: Record<string, unknown>): UserRow {
  return { ...(u as unknown as UserRow), created_at: new Date(u.created_at as string), confirmed_at: u.confirmed_at ? new Date(u.confirmed_at as string) : null };
}

function fromJson(r: JsonRow): MemberWithUser {
  return { ...r, user: userFromJson(r.user), created_by: r.created_by ? userFromJson(r.created_by) : null };
}

export interface MemberListFilter {
  groupId: number;
  /** Members of the group's ancestors too, each user once with their highest level. */
  inherited: boolean;
  query: string;
  userIds: number[];
  limit: number;
  offset: number;
}

/** One page of members (ordered by user id, as GitLab's MembersFinder) and the total. Expired memberships are left out. */
export async function listMembers(db: Queryable, f: MemberListFilter): Promise<{ rows: MemberWithUser[]; total: number }> {
  const params: unknown[] = [f.groupId];
  const bind = (v: unknown) => `$${params.push(v)}`;
  const scope = f.inherited ? `gm.group_id = ANY((SELECT traversal_ids FROM namespaces WHERE id = $1)::bigint[])` : 'gm.group_id = $1';
  const conds = [scope, ACTIVE];
  if (f.userIds.length) conds.push(`gm.user_id = ANY(${bind(f.userIds)}::bigint[])`);
  if (f.query) {
    const q = bind(`%${f.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    conds.push(`EXISTS (SELECT 1 FROM users u WHERE u.id = gm.user_id AND (u.username ILIKE ${q} OR u.name ILIKE ${q} OR lower(u.email) = lower(${bind(f.query)})))`);
  }
  // One row per user: the highest level, the membership closest to the group on a tie.
  const best = `SELECT DISTINCT ON (gm.user_id) ${MEMBER_COLUMNS} FROM group_members gm
    JOIN namespaces g ON g.id = gm.group_id
    WHERE ${conds.join(' AND ')} ORDER BY gm.user_id, gm.access_level DESC, cardinality(g.traversal_ids) DESC`;
  const countParams = [...params];
  const { rows } = await db.query<JsonRow>(
    `SELECT b.*, ${userJson('b.user_id', 'user')}, ${userJson('b.created_by_id', 'created_by')}
     FROM (${best}) b ORDER BY b.user_id LIMIT ${bind(f.limit)} OFFSET ${bind(f.offset)}`,
    params,
  );
  const counted = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${best}) b`, countParams);
  return { rows: rows.map(fromJson), total: counted.rows[0]!.n };
}

/** The user's direct membership of the group (expired ones included: they still occupy the slot). */
export async function findMember(db: Queryable, groupId: number, userId: number, forUpdate = false): Promise<MemberWithUser | undefined> {
  const { rows } = await db.query<JsonRow>(
    `SELECT ${MEMBER_COLUMNS}, ${USER_JSON} FROM group_members gm WHERE gm.group_id = $1 AND gm.user_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [groupId, userId],
  );
  return rows[0] && fromJson(rows[0]);
}

/** The user's highest unexpired level among the group's strict ancestors, and in which group (for GitLab's message). */
export async function inheritedAccess(db: Queryable, groupId: number, userId: number): Promise<{ level: number; groupName: string } | undefined> {
  const { rows } = await db.query<{ level: number; name: string }>(
    `SELECT gm.access_level AS level, g.name FROM group_members gm JOIN namespaces g ON g.id = gm.group_id
     WHERE gm.user_id = $2 AND ${ACTIVE}
       AND gm.group_id = ANY((SELECT traversal_ids FROM namespaces WHERE id = $1)::bigint[]) AND gm.group_id <> $1
     ORDER BY gm.access_level DESC LIMIT 1`,
    [groupId, userId],
  );
  return rows[0] && { level: rows[0].level, groupName: rows[0].name };
}

export async function insertMember(
  db: PoolClient,
  m: { groupId: number; userId: number; accessLevel: number; expiresAt: string | null; createdById: number | null },
): Promise<void> {
  await db.query(
    `INSERT INTO group_members (group_id, user_id, access_level, expires_at, created_by_id) VALUES ($1, $2, $3, $4, $5)`,
    [m.groupId, m.userId, m.accessLevel, m.expiresAt, m.createdById],
  );
}

export async function updateMember(db: PoolClient, groupId: number, userId: number, accessLevel: number, expiresAt: string | null): Promise<void> {
  await db.query(
    'UPDATE group_members SET access_level = $3, expires_at = $4, updated_at = now() WHERE group_id = $1 AND user_id = $2',
    [groupId, userId, accessLevel, expiresAt],
  );
}

export async function deleteMember(db: PoolClient, groupId: number, userId: number): Promise<void> {
  await db.query('DELETE FROM group_members WHERE group_id = $1 AND user_id = $2', [groupId, userId]);
}

/** How many unexpired Owners the group has directly. */
export async function countOwners(db: Queryable, groupId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM group_members gm WHERE gm.group_id = $1 AND gm.access_level = 50 AND ${ACTIVE}`,
    [groupId],
  );
  return rows[0]!.n;
}

/**
 * A user's effective level per group: for every group at or below one of the user's unexpired memberships, the highest
 * level among the memberships on its path. `groupIds` narrows the answer (empty: all of them).
 */
export async function effectiveGroupAccess(db: Queryable, userId: number, groupIds: number[]): Promise<{ group_id: number; access_level: number }[]> {
  const { rows } = await db.query<{ group_id: number; access_level: number }>(
    `SELECT n.id AS group_id, max(gm.access_level)::int AS access_level
     FROM group_members gm JOIN namespaces n ON n.traversal_ids @> ARRAY[gm.group_id]
     WHERE gm.user_id = $1 AND ${ACTIVE} AND n.kind = 'group' AND (cardinality($2::bigint[]) = 0 OR n.id = ANY($2::bigint[]))
     GROUP BY n.id ORDER BY n.id`,
    [userId, groupIds],
  );
  return rows;
}
