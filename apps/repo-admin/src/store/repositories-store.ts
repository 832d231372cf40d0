import type { Pool, PoolClient } from '@glp/db';

type Queryable = Pool | PoolClient;

export interface RepositoryRow {
  project_id: number;
  storage: string;
  disk_path: string;
  empty: boolean;
  default_branch: string | null;
  created_at: Date;
}

export async function findRepository(db: Queryable, projectId: number): Promise<RepositoryRow | undefined> {
  const { rows } = await db.query<RepositoryRow>('SELECT project_id, storage, disk_path, empty, default_branch, created_at FROM repositories WHERE project_id = $1', [projectId]);
  return rows[0];
}

/** Records the repository as it is on disk (created, or changed by a fork copy); returns whether empty/default branch changed. */
export async function upsertRepository(
  db: PoolClient, r: { projectId: number; storage: string; diskPath: string; empty: boolean; defaultBranch: string },
): Promise<boolean> {
  const { rows } = await db.query<{ changed: boolean }>(
    `WITH before AS (SELECT empty, default_branch FROM repositories WHERE project_id = $1)
     INSERT INTO repositories (project_id, storage, disk_path, empty, default_branch) VALUES ($1, $2, $3, $4, NULLIF($5, ''))
     ON CONFLICT (project_id) DO UPDATE SET empty = EXCLUDED.empty, default_branch = EXCLUDED.default_branch, updated_at = now()
     RETURNING NOT EXISTS (SELECT 1 FROM before b WHERE b.empty = $4 AND b.default_branch IS NOT DISTINCT FROM NULLIF($5, '')) AS changed`,
    [r.projectId, r.storage, r.diskPath, r.empty, r.defaultBranch],
  );
  return rows[0]!.changed;
}

export async function deleteRepository(db: PoolClient, projectId: number): Promise<void> {
  await db.query('DELETE FROM repositories WHERE project_id = $1', [projectId]);
}
