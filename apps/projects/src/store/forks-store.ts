import type { Pool, PoolClient } from '@glp/db';

type Queryable = Pool | PoolClient;

/** Makes `projectId` a fork of `sourceId`; false when it already is a fork (of any project). forks_count follows (trigger, 0007). */
export async function insertForkRelation(db: PoolClient, projectId: number, sourceId: number): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO project_forks (project_id, forked_from_project_id) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING',
    [projectId, sourceId],
  );
  return rowCount === 1;
}

/** Removes the project's fork relation; the source it had, or undefined when it was not a fork. */
export async function deleteForkRelation(db: PoolClient, projectId: number): Promise<number | undefined> {
  const { rows } = await db.query<{ forked_from_project_id: number }>(
    'DELETE FROM project_forks WHERE project_id = $1 RETURNING forked_from_project_id',
    [projectId],
  );
  return rows[0]?.forked_from_project_id;
}

/**
 * The fork relations whose source is about to be deleted (by ids, or every project of a namespace), removed first so that
 * each fork's loss of its source can be announced; a fork's own relation goes with it (cascade).
 */
export async function unlinkForksOfSources(db: PoolClient, sources: { ids: number[] } | { namespaceId: number }): Promise<{ project_id: number; forked_from_project_id: number }[]> {
  const { rows } = 'ids' in sources
    ? await db.query<{ project_id: number; forked_from_project_id: number }>(
        'DELETE FROM project_forks WHERE forked_from_project_id = ANY($1::bigint[]) RETURNING project_id, forked_from_project_id', [sources.ids])
    : await db.query<{ project_id: number; forked_from_project_id: number }>(
        `DELETE FROM project_forks f USING projects s WHERE s.id = f.forked_from_project_id AND s.namespace_id = $1
         RETURNING f.project_id, f.forked_from_project_id`, [sources.namespaceId]);
  return rows;
}

/** A new fork waits for repo-admin's copy: import_status "scheduled". */
export async function scheduleImport(db: PoolClient, projectId: number): Promise<void> {
  await db.query(`UPDATE projects SET import_status = 'scheduled', import_error = NULL WHERE id = $1`, [projectId]);
}

/** The project's import status, locked for a transition (undefined when the project is gone). */
export async function lockImportStatus(db: PoolClient, projectId: number): Promise<string | undefined> {
  const { rows } = await db.query<{ import_status: string }>('SELECT import_status FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
  return rows[0]?.import_status;
}

export async function setImportStatus(db: Queryable, projectId: number, status: string, error: string | null): Promise<void> {
  await db.query('UPDATE projects SET import_status = $2, import_error = $3 WHERE id = $1', [projectId, status, error]);
}
