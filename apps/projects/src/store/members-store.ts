import type { Pool, PoolClient } from '@glp/db';
import type { UserReplica } from './users-replica-store';

type Queryable = Pool | PoolClient;

export interface ProjectMemberRow {
  project_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null;
  created_by: number | null;
  created_at: Date;
  user: UserReplica | null;
  creator: UserReplica | null;
}

const ACTIVE = '(m.expires_at IS NULL OR m.expires_at > current_date)';
const COLUMNS = `m.project_id, m.user_id, m.access_level, to_char(m.expires_at, 'YYYY-MM-DD') AS expires_at, m.created_by, m.created_at,
  (SELECT row_to_json(u) FROM (SELECT id, username, name, state, avatar_url FROM users WHERE id = m.user_id) u) AS user,
  (SELECT row_to_json(u) FROM (SELECT id, username, name, state, avatar_url FROM users WHERE id = m.created_by) u) AS creator`;

/**
 * Unexpired direct members of the project (ordered by user id), optionally narrowed, with the user from the read model;
 * a page of them and the total when `page` is given, else all of them.
 */
export async function directMembers(
  db: Queryable,
  projectId: number,
  f: { query: string; userIds: number[]; page?: { limit: number; offset: number } },
): Promise<{ rows: ProjectMemberRow[]; total: number }> {
  const params: unknown[] = [projectId];
  const conds = ['m.project_id = $1', ACTIVE];
  if (f.userIds.length) conds.push(`m.user_id = ANY($${params.push(f.userIds)}::bigint[])`);
  if (f.query) {
    const q = `$${params.push(`%${f.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`;
    conds.push(`EXISTS (SELECT 1 FROM users u WHERE u.id = m.user_id AND (u.username ILIKE ${q} OR u.name ILIKE ${q}))`);
  }
  const where = conds.join(' AND ');
  if (!f.page) {
    const { rows } = await db.query<ProjectMemberRow>(`SELECT ${COLUMNS} FROM project_members m WHERE ${where} ORDER BY m.user_id`, params);
    return { rows, total: rows.length };
  }
  const [page, count] = await Promise.all([
    db.query<ProjectMemberRow>(
      `SELECT ${COLUMNS} FROM project_members m WHERE ${where} ORDER BY m.user_id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, f.page.limit, f.page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM project_members m WHERE ${where}`, params),
  ]);
  return { rows: page.rows, total: count.rows[0]!.n };
}

/** The user's direct membership (expired ones included: they still occupy the slot); `forUpdate` locks it. */
export async function findDirectMember(db: Queryable, projectId: number, userId: number, forUpdate = false): Promise<ProjectMemberRow | undefined> {
  const { rows } = await db.query<ProjectMemberRow>(
    `SELECT ${COLUMNS} FROM project_members m WHERE m.project_id = $1 AND m.user_id = $2${forUpdate ? ' FOR UPDATE OF m' : ''}`,
    [projectId, userId],
  );
  return rows[0];
}

export async function insertProjectMember(
  db: PoolClient,
  m: { projectId: number; userId: number; accessLevel: number; expiresAt: string | null; createdBy: number | null },
): Promise<void> {
  await db.query(
    'INSERT INTO project_members (project_id, user_id, access_level, expires_at, created_by) VALUES ($1, $2, $3, $4, $5)',
    [m.projectId, m.userId, m.accessLevel, m.expiresAt, m.createdBy],
  );
}

export async function updateProjectMember(db: PoolClient, projectId: number, userId: number, accessLevel: number, expiresAt: string | null): Promise<void> {
  await db.query(
    'UPDATE project_members SET access_level = $3, expires_at = $4, updated_at = now() WHERE project_id = $1 AND user_id = $2',
    [projectId, userId, accessLevel, expiresAt],
  );
}

export async function deleteProjectMember(db: PoolClient, projectId: number, userId: number): Promise<void> {
  await db.query('DELETE FROM project_members WHERE project_id = $1 AND user_id = $2', [projectId, userId]);
}

/** Which of these users hold a direct membership of the project (expired ones included: they occupy the slot). */
export async function memberUserIds(db: Queryable, projectId: number, userIds: number[]): Promise<Set<number>> {
  if (!userIds.length) return new Set();
  const { rows } = await db.query<{ user_id: number }>('SELECT user_id FROM project_members WHERE project_id = $1 AND user_id = ANY($2::bigint[])', [projectId, userIds]);
  return new Set(rows.map((r) => r.user_id));
}
