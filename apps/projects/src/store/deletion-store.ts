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

/** Marks a project for deletion on `on` (YYYY-MM-DD) and archives it, as GitLab's delayed deletion does. */
export async function markForDeletion(db: Queryable, id: number, on: string, userId: number | null): Promise<void> {
  await db.query(
    `UPDATE projects SET marked_for_deletion_on = $2::date, deleting_user_id = $3, archived = true, updated_at = now() WHERE id = $1`,
    [id, on, userId],
  );
}

/** Takes a project off the deletion schedule and unarchives it (GitLab's restore). */
export async function unmarkForDeletion(db: Queryable, id: number): Promise<void> {
  await db.query(
    `UPDATE projects SET marked_for_deletion_on = NULL, deleting_user_id = NULL, archived = false, updated_at = now() WHERE id = $1`,
    [id],
  );
}

/** Projects whose deletion day has come, locked for this replica (others skip them). */
export async function lockDueForDeletion(db: PoolClient, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT id FROM projects WHERE marked_for_deletion_on <= current_date ORDER BY marked_for_deletion_on, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows.map((r) => r.id);
}
