import type { Pool, PoolClient } from '@glp/db';
import type { MirrorConfig } from '../domain/import-rules';

type Queryable = Pool | PoolClient;

export interface ImportSourceRow extends MirrorConfig {
  projectId: number;
  urlSealed: Buffer;
  urlMasked: string;
  importType: string;
}

const SELECT = `SELECT project_id AS "projectId", url_sealed AS "urlSealed", url_masked AS "urlMasked", import_type AS "importType",
  mirror, mirror_trigger_builds AS "mirrorTriggerBuilds", only_mirror_protected_branches AS "onlyMirrorProtectedBranches",
  mirror_overwrites_diverged_branches AS "mirrorOverwritesDivergedBranches", mirror_user_id AS "mirrorUserId", mirror_branch_regex AS "mirrorBranchRegex"
  FROM project_import_sources`;

export async function findImportSource(db: Queryable, projectId: number): Promise<ImportSourceRow | undefined> {
  const { rows } = await db.query<ImportSourceRow>(`${SELECT} WHERE project_id = $1`, [projectId]);
  return rows[0];
}

export async function upsertImportSource(db: PoolClient, s: Omit<ImportSourceRow, 'importType'>): Promise<void> {
  await db.query(
    `INSERT INTO project_import_sources (project_id, url_sealed, url_masked, mirror, mirror_trigger_builds, only_mirror_protected_branches,
       mirror_overwrites_diverged_branches, mirror_user_id, mirror_branch_regex)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)
     ON CONFLICT (project_id) DO UPDATE SET url_sealed = EXCLUDED.url_sealed, url_masked = EXCLUDED.url_masked, mirror = EXCLUDED.mirror,
       mirror_trigger_builds = EXCLUDED.mirror_trigger_builds, only_mirror_protected_branches = EXCLUDED.only_mirror_protected_branches,
       mirror_overwrites_diverged_branches = EXCLUDED.mirror_overwrites_diverged_branches, mirror_user_id = EXCLUDED.mirror_user_id,
       mirror_branch_regex = EXCLUDED.mirror_branch_regex, updated_at = now()`,
    [s.projectId, s.urlSealed, s.urlMasked, s.mirror, s.mirrorTriggerBuilds, s.onlyMirrorProtectedBranches, s.mirrorOverwritesDivergedBranches, s.mirrorUserId, s.mirrorBranchRegex],
  );
}

/** The import sources of a page of projects (masked URL and mirror configuration), one query. */
export async function importSourcesOf(db: Queryable, projectIds: readonly number[]): Promise<Map<number, ImportSourceRow>> {
  if (projectIds.length === 0) return new Map();
  const { rows } = await db.query<ImportSourceRow>(`${SELECT} WHERE project_id = ANY($1::bigint[])`, [projectIds]);
  return new Map(rows.map((r) => [r.projectId, r]));
}
