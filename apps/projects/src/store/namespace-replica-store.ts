import type { Pool, PoolClient } from '@glp/db';
import { NAMESPACE_ROUTE_CTES } from './redirect-routes-store';

type Queryable = Pool | PoolClient;

/** What identity tells about a namespace, in its gRPC answer and in NamespaceChanged alike. */
export interface NamespaceFacts {
  id: number;
  name: string;
  path: string;
  kind: string;
  fullPath: string;
  parentId: number;
  owner?: { id: number; username: string; name: string; state: string } | undefined;
  version: number;
  /** Groups: the group or an ancestor is marked for deletion (its projects are not `active`). */
  selfOrAncestorMarkedForDeletion: boolean;
}

export function namespaceReplica(ns: NamespaceFacts): NamespaceReplica {
  return {
    id: ns.id, name: ns.name, path: ns.path, kind: ns.kind, full_path: ns.fullPath, parent_id: ns.parentId || null,
    owner_id: ns.owner?.id ?? null, owner_username: ns.owner?.username ?? null, owner_name: ns.owner?.name ?? null,
    owner_state: ns.owner?.state ?? null, version: ns.version, self_or_ancestor_marked: ns.selfOrAncestorMarkedForDeletion,
  };
}

export interface NamespaceReplica {
  id: number;
  name: string;
  path: string;
  kind: string;
  full_path: string;
  parent_id: number | null;
  owner_id: number | null;
  owner_username: string | null;
  owner_name: string | null;
  owner_state: string | null;
  version: number;
  /** Absent: not marked (personal namespaces never are). */
  self_or_ancestor_marked?: boolean;
}

/**
 * Inserts or replaces the namespace when the incoming version is newer than the stored one. A new or moved full path
 * updates the projects' redirect routes in the same statement (`NAMESPACE_ROUTE_CTES`), whoever writes it (the
 * NamespaceChanged consumer or an on-demand refresh from identity); the previous full path is read locked.
 */
export async function upsertNamespace(db: Queryable, n: NamespaceReplica): Promise<boolean> {
  const { rows } = await db.query<{ written: number }>(
    `WITH before AS MATERIALIZED (SELECT full_path FROM namespaces WHERE id = $1 FOR UPDATE),
     up AS (
     INSERT INTO namespaces (id, name, path, kind, full_path, parent_id, owner_id, owner_username, owner_name, owner_state, version,
                             self_or_ancestor_marked)
     -- Through "before": the row is locked and its latest full path read before the upsert touches it.
     SELECT $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12 FROM (SELECT count(*) FROM before) AS locked
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, path = EXCLUDED.path, kind = EXCLUDED.kind,
       full_path = EXCLUDED.full_path, parent_id = EXCLUDED.parent_id, owner_id = EXCLUDED.owner_id,
       owner_username = EXCLUDED.owner_username, owner_name = EXCLUDED.owner_name, owner_state = EXCLUDED.owner_state,
       version = EXCLUDED.version, self_or_ancestor_marked = EXCLUDED.self_or_ancestor_marked, updated_at = now()
     WHERE namespaces.version < EXCLUDED.version
     RETURNING id, full_path
     ), ${NAMESPACE_ROUTE_CTES}
     SELECT count(*)::int AS written FROM up`,
    [n.id, n.name, n.path, n.kind, n.full_path, n.parent_id, n.owner_id, n.owner_username, n.owner_name, n.owner_state, n.version, n.self_or_ancestor_marked ?? false],
  );
  return rows[0]?.written === 1;
}

export async function findNamespace(db: Queryable, id: number): Promise<NamespaceReplica | undefined> {
  const { rows } = await db.query<NamespaceReplica>('SELECT * FROM namespaces WHERE id = $1', [id]);
  return rows[0];
}

export async function findPersonalNamespace(db: Queryable, ownerId: number): Promise<NamespaceReplica | undefined> {
  const { rows } = await db.query<NamespaceReplica>("SELECT * FROM namespaces WHERE owner_id = $1 AND kind = 'user'", [ownerId]);
  return rows[0];
}

/** The namespace is gone in identity: its replica row goes (its projects were deleted first). */
export async function removeNamespace(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM namespaces n WHERE n.id = $1 AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.namespace_id = n.id)', [id]);
}
