import { isForeignKeyViolation, type Pool, type PoolClient } from '@glp/db';

type Queryable = Pool | PoolClient;

export interface CustomAttributeRow {
  key: string;
  value: string;
}

/**
 * The id of a project that exists and is not being deleted, by id or `namespace/path` (case-insensitive), whoever may
 * read it: GitLab's `find_project` (`Project.without_deleted`), which the custom attribute endpoints use before their
 * administrator check.
 */
export async function existingProjectId(db: Queryable, sel: { id: number } | { fullPath: string }): Promise<number | undefined> {
  if ('id' in sel) {
    const { rows } = await db.query<{ id: number }>('SELECT id FROM projects WHERE id = $1 AND NOT pending_delete', [sel.id]);
    return rows[0]?.id;
  }
  const slash = sel.fullPath.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const { rows } = await db.query<{ id: number }>(
    `SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id
      WHERE lower(n.full_path) = lower($1) AND lower(p.path) = lower($2) AND NOT p.pending_delete`,
    [sel.fullPath.slice(0, slash), sel.fullPath.slice(slash + 1)],
  );
  return rows[0]?.id;
}

/** A project's custom attributes, ordered by key (the primary key's order). */
export async function listCustomAttributes(db: Queryable, projectId: number): Promise<CustomAttributeRow[]> {
  const { rows } = await db.query<CustomAttributeRow>(
    'SELECT key, value FROM project_custom_attributes WHERE project_id = $1 ORDER BY key',
    [projectId],
  );
  return rows;
}

/** The custom attributes of several projects (a listing's page) in ONE query, each project's ordered by key. */
export async function customAttributesOf(db: Queryable, projectIds: readonly number[]): Promise<Map<number, CustomAttributeRow[]>> {
  const out = new Map<number, CustomAttributeRow[]>();
  if (projectIds.length === 0) return out;
  const { rows } = await db.query<CustomAttributeRow & { project_id: number }>(
    `SELECT project_id, key, value FROM project_custom_attributes
      WHERE project_id = ANY($1::bigint[]) ORDER BY project_id, key`,
    [projectIds],
  );
  for (const r of rows) {
    let list = out.get(r.project_id);
    if (!list) out.set(r.project_id, (list = []));
    list.push({ key: r.key, value: r.value });
  }
  return out;
}

export async function findCustomAttribute(db: Queryable, projectId: number, key: string): Promise<CustomAttributeRow | undefined> {
  const { rows } = await db.query<CustomAttributeRow>(
    'SELECT key, value FROM project_custom_attributes WHERE project_id = $1 AND key = $2',
    [projectId, key],
  );
  return rows[0];
}

/**
 * Creates the attribute or replaces its value (one statement, safe against a concurrent PUT of the same key);
 * undefined when the project was deleted meanwhile (the foreign key refuses the row).
 */
export async function upsertCustomAttribute(db: Queryable, projectId: number, key: string, value: string): Promise<CustomAttributeRow | undefined> {
  try {
    const { rows } = await db.query<CustomAttributeRow>(
      `INSERT INTO project_custom_attributes (project_id, key, value) VALUES ($1, $2, $3)
       ON CONFLICT (project_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
       RETURNING key, value`,
      [projectId, key, value],
    );
    return rows[0]!;
  } catch (err) {
    if (isForeignKeyViolation(err)) return undefined;
    throw err;
  }
}

/** Removes the attribute; false when the project had none with that key. */
export async function deleteCustomAttribute(db: Queryable, projectId: number, key: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM project_custom_attributes WHERE project_id = $1 AND key = $2', [projectId, key]);
  return (rowCount ?? 0) > 0;
}
