import type { Pool, PoolClient } from '@glp/db';
import { PROJECT_SELECT, type ProjectRow } from './project-rows';

type Queryable = Pool | PoolClient;

/**
 * SQL condition: the redirect `r` is at the full path `target` (an SQL expression) or below it — GitLab's
 * `RedirectRoute.matching_path_and_descendants`, case-insensitive. `r.path` is COLLATE "C" (0010), so the paths below
 * `t` are exactly the range ['t/', 't0') ('0' follows '/' in byte order): index conditions even when `t` comes from a
 * joined row, and no LIKE escaping of `_` or `%`.
 */
export const redirectAtOrBelow = (target: string): string => {
  const t = `(lower(${target}) COLLATE "C")`;
  return `(lower(r.path) = ${t} OR (lower(r.path) >= (${t} || '/') AND lower(r.path) < (${t} || '0')))`;
};

/** Inserting a redirect: a path left by another project before (a stale one) now leads to this project. */
const UPSERT_REDIRECT = 'ON CONFLICT ((lower(path))) DO UPDATE SET project_id = EXCLUDED.project_id, created_at = now()';

/**
 * The project whose redirect route is `fullPath` (case-insensitive), with its namespace and the caller's membership
 * (`$1` caller id, as every ProjectRow query). Asked only when no live project has the path: a live route wins.
 */
export async function findProjectByRedirect(db: Queryable, fullPath: string, callerId: number): Promise<ProjectRow | undefined> {
  const { rows } = await db.query<ProjectRow>({
    name: 'project_by_redirect',
    text: `${PROJECT_SELECT} WHERE p.id = (SELECT r.project_id FROM project_redirect_routes r WHERE lower(r.path) = (lower($2) COLLATE "C"))`,
    values: [callerId, fullPath],
  });
  return rows[0];
}

/**
 * After a project got its route (created, path changed, transferred), in the same transaction: GitLab's Route callbacks
 * (app/models/route.rb) — redirects at its full path or below it go (`delete_conflicting_redirects`), and the path it
 * left (`leftBehind`, none for a new project) becomes a redirect to it (`create_redirect_for_old_path`).
 */
export async function recordProjectRoute(db: Queryable, projectId: number, leftBehind: string | null): Promise<void> {
  await db.query(
    `WITH route AS (
       SELECT n.full_path || '/' || p.path AS path FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = $1
     ), cleared AS (
       DELETE FROM project_redirect_routes r USING route WHERE ${redirectAtOrBelow('route.path')}
     )
     INSERT INTO project_redirect_routes (path, project_id) SELECT $2::text, $1 WHERE $2::text IS NOT NULL
     ${UPSERT_REDIRECT}`,
    [projectId, leftBehind],
  );
}

/**
 * CTEs for the namespace upsert (store/namespace-replica-store.ts), to follow `before(full_path)` — the namespace's
 * previous full path, no row when it is new — and `up(id, full_path)` — the namespace as written, no row when the write
 * was skipped as stale. For a namespace whose full path is new or changed (a change of letter case only is no move,
 * domain/redirect-rules.ts `redirectLeftBy`): redirects at its new path or below it go, and each project directly in it
 * keeps its old full path as a redirect (Route `rename_descendants`; the projects of subgroups come with the subgroups'
 * own NamespaceChanged, which identity sends for every descendant whose full path moved).
 */
export const NAMESPACE_ROUTE_CTES = `
  moved AS (
    SELECT up.id, up.full_path, b.full_path AS old_path FROM up LEFT JOIN before b ON true
    WHERE b.full_path IS NULL OR lower(b.full_path) <> lower(up.full_path)
  ),
  cleared_redirects AS (
    DELETE FROM project_redirect_routes r USING moved WHERE ${redirectAtOrBelow('moved.full_path')}
  ),
  project_redirects AS (
    INSERT INTO project_redirect_routes (path, project_id)
    SELECT m.old_path || '/' || p.path, p.id FROM moved m JOIN projects p ON p.namespace_id = m.id WHERE m.old_path IS NOT NULL
    ${UPSERT_REDIRECT}
  )`;
