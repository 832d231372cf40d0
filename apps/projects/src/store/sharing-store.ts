import type { Pool, PoolClient } from '@glp/db';

type Queryable = Pool | PoolClient;

export interface ProjectGroupLinkRow {
  id: number;
  project_id: number;
  group_id: number;
  group_access: number;
  /** YYYY-MM-DD, null when it does not expire. */
  expires_at: string | null;
}

const LINK_COLUMNS = "id, project_id, group_id, group_access, to_char(expires_at, 'YYYY-MM-DD') AS expires_at";

/** Inserts the link; undefined when the project is already linked to the group (the unique index decides). */
export async function insertGroupLink(
  db: PoolClient,
  l: { projectId: number; groupId: number; groupAccess: number; expiresAt: string | null; createdBy: number | null },
): Promise<ProjectGroupLinkRow | undefined> {
  const { rows } = await db.query<ProjectGroupLinkRow>(
    `INSERT INTO project_group_links (project_id, group_id, group_access, expires_at, created_by) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (project_id, group_id) DO NOTHING RETURNING ${LINK_COLUMNS}`,
    [l.projectId, l.groupId, l.groupAccess, l.expiresAt, l.createdBy],
  );
  return rows[0];
}

/** Deletes the link (expired ones too); false when there was none. */
export async function deleteGroupLink(db: PoolClient, projectId: number, groupId: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM project_group_links WHERE project_id = $1 AND group_id = $2', [projectId, groupId]);
  return (rowCount ?? 0) > 0;
}

/** Every link of the project, expired ones included (they still occupy the slot until removed), by group id. */
export async function groupLinksOf(db: Queryable, projectId: number): Promise<ProjectGroupLinkRow[]> {
  const { rows } = await db.query<ProjectGroupLinkRow>(`SELECT ${LINK_COLUMNS} FROM project_group_links WHERE project_id = $1 ORDER BY group_id`, [projectId]);
  return rows;
}

/** A group as GET /projects/:id/groups shows it (namespaces read model). */
export interface GroupRow {
  id: number;
  name: string;
  path: string;
  full_path: string;
  /** Names of the group and its ancestors joined with " / ". */
  full_name: string;
}

/** The namespace and its ancestors (read model), nearest first; ids only. */
export async function selfAndAncestorIds(db: Queryable, namespaceId: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `WITH RECURSIVE up(id, parent_id, depth) AS (
       SELECT id, parent_id, 0 FROM namespaces WHERE id = $1
       UNION ALL SELECT n.id, n.parent_id, up.depth + 1 FROM namespaces n JOIN up ON n.id = up.parent_id WHERE up.depth < 100)
     SELECT id FROM up ORDER BY depth`,
    [namespaceId],
  );
  return rows.map((r) => Number(r.id));
}

/** These groups (read model) with their full names, by id; groups the read model lacks are left out. */
export async function groupsByIds(db: Queryable, ids: number[]): Promise<GroupRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<GroupRow>(
    `WITH RECURSIVE up(start_id, id, parent_id, name, depth) AS (
       SELECT id, id, parent_id, name, 0 FROM namespaces WHERE id = ANY($1::bigint[]) AND kind = 'group'
       UNION ALL SELECT up.start_id, n.id, n.parent_id, n.name, up.depth + 1 FROM namespaces n JOIN up ON n.id = up.parent_id WHERE up.depth < 100)
     SELECT g.id, g.name, g.path, g.full_path, (SELECT string_agg(u.name, ' / ' ORDER BY u.depth DESC) FROM up u WHERE u.start_id = g.id) AS full_name
       FROM namespaces g WHERE g.id = ANY($1::bigint[]) AND g.kind = 'group' ORDER BY g.id`,
    [ids],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** A group is gone: every project's share with it goes; the projects whose share went. */
export async function deleteGroupLinksOfGroup(db: PoolClient, groupId: number): Promise<number[]> {
  const { rows } = await db.query<{ project_id: number }>('DELETE FROM project_group_links WHERE group_id = $1 RETURNING project_id', [groupId]);
  return rows.map((r) => r.project_id);
}
