import type { Pool, PoolClient } from '@glp/db';
import type { StarrerSearch } from '../domain/star-rules';
import type { UserReplica } from './users-replica-store';

type Queryable = Pool | PoolClient;

export interface StarRow {
  user_id: number;
  created_at: Date;
  /** From the users read model; null when it lacks the user. */
  user: UserReplica | null;
}

/**
 * Adds the user's star and raises `projects.star_count` with it; the new count, or undefined when the user had
 * starred the project already (nothing changes). Run in the caller's transaction.
 */
export async function insertStar(db: PoolClient, projectId: number, userId: number): Promise<number | undefined> {
  const { rows } = await db.query<{ star_count: number }>(
    `WITH added AS (
       INSERT INTO stars (project_id, user_id) VALUES ($1, $2) ON CONFLICT (project_id, user_id) DO NOTHING RETURNING project_id
     )
     UPDATE projects p SET star_count = p.star_count + 1 FROM added WHERE p.id = added.project_id RETURNING p.star_count`,
    [projectId, userId],
  );
  return rows[0]?.star_count;
}

/**
 * Removes the user's star and lowers `projects.star_count` with it; the new count, or undefined when the user had not
 * starred the project (nothing changes). Run in the caller's transaction.
 */
export async function deleteStar(db: PoolClient, projectId: number, userId: number): Promise<number | undefined> {
  const { rows } = await db.query<{ star_count: number }>(
    `WITH removed AS (DELETE FROM stars WHERE project_id = $1 AND user_id = $2 RETURNING project_id)
     UPDATE projects p SET star_count = GREATEST(p.star_count - 1, 0) FROM removed WHERE p.id = removed.project_id RETURNING p.star_count`,
    [projectId, userId],
  );
  return rows[0]?.star_count;
}

const USER_JSON = '(SELECT row_to_json(u) FROM (SELECT id, username, name, state, avatar_url FROM users WHERE id = s.user_id) u) AS user';

/**
 * One page of the project's starrers and their total. Without a search: in the order they starred (GitLab pages
 * `users_star_projects` by id). With one (users of the read model only): exact usernames first, then exact names,
 * then by name and user id, as GitLab's `User.search` orders them.
 */
export async function listStars(
  db: Queryable,
  projectId: number,
  f: { search?: StarrerSearch; limit: number; offset: number },
): Promise<{ rows: StarRow[]; total: number }> {
  if (f.search?.kind === 'none') return { rows: [], total: 0 };
  const params: unknown[] = [projectId];
  if (!f.search) {
    const where = 's.project_id = $1';
    const [page, count] = await Promise.all([
      db.query<StarRow>(
        `SELECT s.user_id, s.created_at, ${USER_JSON} FROM stars s WHERE ${where} ORDER BY s.created_at, s.user_id LIMIT $2 OFFSET $3`,
        [...params, f.limit, f.offset],
      ),
      db.query<{ n: number }>(`SELECT count(*)::int AS n FROM stars s WHERE ${where}`, params),
    ]);
    return { rows: page.rows, total: count.rows[0]!.n };
  }
  const patterns = f.search.patterns.map((p) => `$${params.push(p)}`);
  const all = (column: string) => `(${patterns.map((p) => `${column} ILIKE ${p}`).join(' AND ')})`;
  const from = `FROM stars s JOIN users u ON u.id = s.user_id WHERE s.project_id = $1 AND (${all('u.name')} OR ${all('u.username')})`;
  const n = params.length;
  const rank = `CASE WHEN lower(u.username) = $${n + 1} THEN 1 WHEN lower(u.name) = $${n + 1} THEN 2 ELSE 3 END`;
  const [page, count] = await Promise.all([
    db.query<StarRow>(
      `SELECT s.user_id, s.created_at, ${USER_JSON} ${from} ORDER BY ${rank}, u.name, u.id LIMIT $${n + 2} OFFSET $${n + 3}`,
      [...params, f.search.exact, f.limit, f.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, params),
  ]);
  return { rows: page.rows, total: count.rows[0]!.n };
}

/** A deleted user's stars go, each project's `star_count` lowered with them (GitLab destroys them with the user). */
export async function removeUserStars(db: PoolClient, userId: number): Promise<void> {
  await db.query(
    `WITH removed AS (DELETE FROM stars WHERE user_id = $1 RETURNING project_id)
     UPDATE projects p SET star_count = GREATEST(p.star_count - 1, 0) FROM removed WHERE p.id = removed.project_id`,
    [userId],
  );
}
