import type { PoolClient } from '@glp/db';

/**
 * Sets the project's `archived` flag when it differs (its `updated_at` moves with it, as GitLab's update service
 * saves the project); whether it changed. Run in the caller's transaction, so the event goes with it.
 */
export async function updateArchived(db: PoolClient, projectId: number, archived: boolean): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE projects SET archived = $2, updated_at = now() WHERE id = $1 AND archived IS DISTINCT FROM $2',
    [projectId, archived],
  );
  return rowCount === 1;
}
