import type { Pool, PoolClient } from '@glp/db';
import type { NewProject } from '../domain/new-project';
import type { ProjectPatch } from '../domain/project-edit';
import type { ListFilter } from '../domain/list-filter';
import { PROJECT_FROM, PROJECT_SELECT, type ProjectRow } from './project-rows';

type Queryable = Pool | PoolClient;

export async function insertProject(
  db: PoolClient,
  p: NewProject & { namespaceId: number; creatorId: number },
): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO projects (namespace_id, name, path, description, visibility, creator_id, default_branch, topics, settings)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) RETURNING id`,
    [p.namespaceId, p.name, p.path, p.description, p.visibility, p.creatorId, p.defaultBranch, p.topics, JSON.stringify(p.settings)],
  );
  return rows[0]!.id;
}

export async function insertMember(db: PoolClient, m: { projectId: number; userId: number; accessLevel: number; createdBy: number }): Promise<void> {
  await db.query(
    `INSERT INTO project_members (project_id, user_id, access_level, created_by) VALUES ($1,$2,$3,$4)
     ON CONFLICT (project_id, user_id) DO NOTHING`,
    [m.projectId, m.userId, m.accessLevel, m.createdBy],
  );
}

/** Which of name / path already exist in the namespace (case-insensitive). */
export async function takenInNamespace(db: Queryable, namespaceId: number, name: string, path: string): Promise<{ name: boolean; path: boolean }> {
  const { rows } = await db.query<{ name_taken: boolean; path_taken: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND lower(name) = lower($2)) AS name_taken,
            EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND lower(path) = lower($3)) AS path_taken`,
    [namespaceId, name, path],
  );
  return { name: rows[0]!.name_taken, path: rows[0]!.path_taken };
}

export async function findProjectById(db: Queryable, id: number, callerId: number): Promise<ProjectRow | undefined> {
  // Named: prepared once per connection (the hottest read of the API).
  const { rows } = await db.query<ProjectRow>({ name: 'project_by_id', text: `${PROJECT_SELECT} WHERE p.id = $2`, values: [callerId, id] });
  return rows[0];
}

/** `namespace/path`, case-insensitive: the namespace by full path, then the project by (namespace, path). */
export async function findProjectByFullPath(db: Queryable, fullPath: string, callerId: number): Promise<ProjectRow | undefined> {
  const slash = fullPath.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const { rows } = await db.query<ProjectRow>({
    name: 'project_by_full_path',
    text: `${PROJECT_SELECT} WHERE lower(n.full_path) = lower($2) AND lower(p.path) = lower($3)`,
    values: [callerId, fullPath.slice(0, slash), fullPath.slice(slash + 1)],
  });
  return rows[0];
}

const ORDER_COLUMNS: Record<ListFilter['orderBy'], string> = {
  id: 'p.id',
  created_at: 'p.id', // GitLab orders created_at by id
  name: 'lower(p.name)',
  path: 'lower(p.path)',
  updated_at: 'p.updated_at',
  last_activity_at: 'p.last_activity_at',
  star_count: 'p.star_count',
};

/** WHERE clause for a listing (`$1` = caller id), built only from fixed SQL and bound values. */
function listWhere(f: ListFilter): { sql: string; values: unknown[] } {
  const values: unknown[] = [f.callerId];
  const bind = (v: unknown) => `$${values.push(v)}`;
  const where = ['NOT p.pending_delete'];
  // The caller's level in each project: owner of the personal namespace (50), direct membership, group access.
  let inGroup = 'false';
  let groupLevel = () => '0';
  if (f.groupAccess.length) {
    const ids = bind(f.groupAccess.map((g) => g.namespaceId));
    inGroup = `p.namespace_id = ANY(${ids}::bigint[])`;
    groupLevel = () => {
      const levels = bind(f.groupAccess.map((g) => g.level));
      return `COALESCE((SELECT ga.level FROM unnest(${ids}::bigint[], ${levels}::int[]) AS ga(ns, level) WHERE ga.ns = p.namespace_id), 0)`;
    };
  }
  const member = `(m.user_id IS NOT NULL OR n.owner_id = $1 OR ${inGroup})`;
  if (f.readScope === 'public') where.push("p.visibility = 'public'");
  else if (f.readScope === 'signed_in') where.push(`(p.visibility IN ('public', 'internal') OR ${member})`);
  else if (f.readScope === 'external') where.push(`(p.visibility = 'public' OR ${member})`);
  if (f.owned) where.push(`n.owner_id = $1`);
  if (f.membership) where.push(member);
  if (f.minAccessLevel !== undefined) {
    where.push(`GREATEST(CASE WHEN n.owner_id = $1 THEN 50 ELSE 0 END, COALESCE(m.access_level, 0), ${groupLevel()}) >= ${bind(f.minAccessLevel)}`);
  }
  if (f.namespaceId) where.push(`p.namespace_id = ${bind(f.namespaceId)}`);
  if (f.visibility) where.push(`p.visibility = ${bind(f.visibility)}`);
  if (f.archived !== undefined) where.push(`p.archived = ${bind(f.archived)}`);
  if (f.idAfter) where.push(`p.id > ${bind(f.idAfter)}`);
  if (f.idBefore) where.push(`p.id < ${bind(f.idBefore)}`);
  if (f.topics.length) where.push(`lower_text_array(p.topics) @> ${bind(f.topics.map((t) => t.toLowerCase()))}::text[]`);
  if (f.search) {
    if (f.search.kind === 'exact') {
      const v = bind(f.search.value);
      where.push(`(lower(p.name) = lower(${v}) OR lower(p.path) = lower(${v}) OR lower(p.description) = lower(${v}))`);
    } else {
      const patterns = f.search.patterns.map(bind);
      const columnMatches = (c: string) => `(${patterns.map((pt) => `${c} ILIKE ${pt}`).join(' AND ')})`;
      where.push(`(${['p.name', 'p.path', 'p.description'].map(columnMatches).join(' OR ')})`);
    }
  }
  return { sql: where.join(' AND '), values };
}

/** One page of projects with their namespace and the caller's access (one query), and the capped total. */
export async function listProjects(db: Queryable, f: ListFilter): Promise<{ rows: ProjectRow[]; total: number }> {
  const { sql, values } = listWhere(f);
  const dir = f.sort === 'asc' ? 'ASC' : 'DESC';
  const order = f.orderBy === 'id' || f.orderBy === 'created_at' ? `p.id ${dir}` : `${ORDER_COLUMNS[f.orderBy]} ${dir}, p.id ${dir}`;
  const pageValues = [...values, f.perPage, (f.page - 1) * f.perPage];
  const page = db.query<ProjectRow>(
    `${PROJECT_SELECT} WHERE ${sql} ORDER BY ${order} LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
    pageValues,
  );
  const count = f.countLimit > 0
    ? db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT 1 ${PROJECT_FROM}
          WHERE ${sql} LIMIT ${f.countLimit + 1}) s`,
        values,
      )
    : undefined;
  const [pageRes, countRes] = await Promise.all([page, count]);
  const n = countRes?.rows[0]?.n;
  return { rows: pageRes.rows, total: n === undefined || n > f.countLimit ? -1 : n };
}

/** The project row locked for an edit (`FOR UPDATE` of the project only), with the caller's membership; `$1` caller id. */
export async function lockProjectForEdit(db: PoolClient, id: number, callerId: number): Promise<ProjectRow | undefined> {
  const { rows } = await db.query<ProjectRow>(`${PROJECT_SELECT} WHERE p.id = $2 FOR UPDATE OF p`, [callerId, id]);
  return rows[0];
}

/** Whether another project of the namespace has this name / path (case-insensitive); `null` is not checked. */
export async function takenByOtherProject(
  db: Queryable, namespaceId: number, projectId: number, name: string | null, path: string | null,
): Promise<{ name: boolean; path: boolean }> {
  const { rows } = await db.query<{ name_taken: boolean; path_taken: boolean }>(
    `SELECT $3::text IS NOT NULL AND EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND id <> $2 AND lower(name) = lower($3)) AS name_taken,
            $4::text IS NOT NULL AND EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND id <> $2 AND lower(path) = lower($4)) AS path_taken`,
    [namespaceId, projectId, name, path],
  );
  return { name: rows[0]!.name_taken, path: rows[0]!.path_taken };
}

/** Writes an edit: only the patched columns (fixed names, bound values), settings merged into the stored ones, updated_at. */
export async function updateProjectAttributes(db: PoolClient, id: number, patch: ProjectPatch): Promise<void> {
  const values: unknown[] = [id];
  const sets = ['updated_at = now()'];
  const set = (column: string, value: unknown, cast = '') => sets.push(`${column} = $${values.push(value)}${cast}`);
  if (patch.name !== undefined) set('name', patch.name);
  if (patch.path !== undefined) set('path', patch.path);
  if (patch.description !== undefined) set('description', patch.description);
  if (patch.visibility !== undefined) set('visibility', patch.visibility);
  if (patch.topics !== undefined) set('topics', patch.topics, '::text[]');
  if (patch.settings !== undefined) sets.push(`settings = settings || $${values.push(JSON.stringify(patch.settings))}::jsonb`);
  await db.query(`UPDATE projects SET ${sets.join(', ')} WHERE id = $1`, values);
}
