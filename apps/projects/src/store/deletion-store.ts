import type { Pool, PoolClient } from '@glp/db';

type Queryable = Pool | PoolClient;

export interface DeletedProject {
  id: number;
  namespace_id: number;
  path_with_namespace: string;
  repository_storage: string;
}

const RETURNING = `RETURNING p.id, p.namespace_id, p.repository_storage, (SELECT n.full_path FROM namespaces n WHERE n.id = p.namespace_id) || '/' || p.path AS path_with_namespace`;

/** Deletes projects for good (members and stars cascade); what went. */
export async function deleteProjects(db: PoolClient, ids: number[]): Promise<DeletedProject[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<DeletedProject>(`DELETE FROM projects p WHERE p.id = ANY($1::bigint[]) ${RETURNING}`, [ids]);
  return rows;
}

/** Deletes every project of a namespace (the namespace is gone); what went. */
export async function deleteNamespaceProjects(db: PoolClient, namespaceId: number): Promise<DeletedProject[]> {
  const { rows } = await db.query<DeletedProject>(`DELETE FROM projects p WHERE p.namespace_id = $1 ${RETURNING}`, [namespaceId]);
  return rows;
}

/**
 * Marks a project for deletion today, archived and renamed (GitLab's MarkForDeletionService); the day it was marked
 * (YYYY-MM-DD), or nothing when it was already marked (a concurrent DELETE won).
 */
export async function markForDeletion(
  db: Queryable, id: number, renamed: { name: string; path: string }, userId: number | null,
): Promise<string | undefined> {
  const { rows } = await db.query<{ on: string }>(
    `UPDATE projects SET marked_for_deletion_on = current_date, deleting_user_id = $2, archived = true, name = $3, path = $4, updated_at = now()
     WHERE id = $1 AND marked_for_deletion_on IS NULL RETURNING to_char(marked_for_deletion_on, 'YYYY-MM-DD') AS on`,
    [id, userId, renamed.name, renamed.path],
  );
  return rows[0]?.on;
}

/** Takes a project off the deletion schedule, unarchived, under its name and path again (GitLab's restore); whether it was marked. */
export async function unmarkForDeletion(db: Queryable, id: number, restored: { name: string; path: string }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE projects SET marked_for_deletion_on = NULL, deleting_user_id = NULL, archived = false, name = $2, path = $3, updated_at = now()
     WHERE id = $1 AND marked_for_deletion_on IS NOT NULL`,
    [id, restored.name, restored.path],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Projects marked at least `periodDays` days ago (GitLab's `aimed_for_deletion(deletion_adjourned_period.days.ago)`),
 * locked for this replica (others skip them).
 */
export async function lockDueForDeletion(db: PoolClient, periodDays: number, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT id FROM projects WHERE marked_for_deletion_on <= current_date - $1::int
     ORDER BY marked_for_deletion_on, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [periodDays, limit],
  );
  return rows.map((r) => r.id);
}
