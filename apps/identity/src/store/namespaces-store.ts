import type { Pool, PoolClient } from '@glp/db';
import type { NamespaceRow } from './user-rows';

type Queryable = Pool | PoolClient;

// Nested groups come later; a top-level namespace's full path is its path.
const NAMESPACE_SELECT = `SELECT id, name, path, kind, parent_id, owner_id, version, path AS full_path FROM namespaces`;

export async function insertPersonalNamespace(db: PoolClient, owner: { id: number; username: string; name: string }): Promise<NamespaceRow> {
  const { rows } = await db.query<NamespaceRow>(
    `INSERT INTO namespaces (name, path, kind, owner_id) VALUES ($1, $2, 'user', $3)
     RETURNING id, name, path, kind, parent_id, owner_id, version, path AS full_path`,
    [owner.username, owner.username, owner.id],
  );
  return rows[0]!;
}

export async function findNamespaceById(db: Queryable, id: number): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(`${NAMESPACE_SELECT} WHERE id = $1`, [id]);
  return rows[0];
}

export async function findNamespaceByFullPath(db: Queryable, fullPath: string): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(`${NAMESPACE_SELECT} WHERE parent_id IS NULL AND lower(path) = lower($1)`, [fullPath]);
  return rows[0];
}
