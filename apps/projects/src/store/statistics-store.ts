import type { Pool, PoolClient } from '@glp/db';
import type { MeasuredSizes } from '../domain/statistics-rules';

type Queryable = Pool | PoolClient;

/** A project's statistics row (bytes, except commit_count). */
export interface StatisticsRow {
  project_id: number;
  commit_count: number;
  storage_size: number;
  repository_size: number;
  wiki_size: number;
  lfs_objects_size: number;
  job_artifacts_size: number;
  pipeline_artifacts_size: number;
  packages_size: number;
  snippets_size: number;
  uploads_size: number;
  container_registry_size: number;
}

/** The statistics of these projects (one query by primary key for a whole page), by project id. */
export async function statisticsOf(db: Queryable, projectIds: number[]): Promise<Map<number, StatisticsRow>> {
  if (projectIds.length === 0) return new Map();
  const { rows } = await db.query<StatisticsRow>(
    `SELECT project_id, commit_count, storage_size, repository_size, wiki_size, lfs_objects_size, job_artifacts_size,
            pipeline_artifacts_size, packages_size, snippets_size, uploads_size, container_registry_size
       FROM project_statistics WHERE project_id = ANY($1::bigint[])`,
    [projectIds],
  );
  return new Map(rows.map((r) => [r.project_id, r]));
}

/**
 * Applies repo-admin's measurement of a project (the sizes it measures; the others are kept) unless a later one was
 * applied already. A project that no longer exists is skipped (false); one without a row gets it.
 */
export async function applyMeasuredSizes(db: PoolClient, projectId: number, s: MeasuredSizes, measuredAt: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO project_statistics AS ps (project_id, commit_count, repository_size, wiki_size, lfs_objects_size, uploads_size, measured_at)
     SELECT p.id, $2, $3, $4, $5, $6, $7 FROM projects p WHERE p.id = $1
     ON CONFLICT (project_id) DO UPDATE SET commit_count = EXCLUDED.commit_count, repository_size = EXCLUDED.repository_size,
       wiki_size = EXCLUDED.wiki_size, lfs_objects_size = EXCLUDED.lfs_objects_size, uploads_size = EXCLUDED.uploads_size,
       measured_at = EXCLUDED.measured_at
     WHERE ps.measured_at IS NULL OR ps.measured_at <= EXCLUDED.measured_at`,
    [projectId, s.commitCount, s.repositorySize, s.wikiSize, s.lfsObjectsSize, s.uploadsSize, measuredAt],
  );
  return (rowCount ?? 0) > 0;
}
