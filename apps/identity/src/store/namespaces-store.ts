import type { Pool, PoolClient } from '@glp/db';
import type { NamespaceRow } from './user-rows';

type Queryable = Pool | PoolClient;

const NAMESPACE_COLUMNS = 'id, name, path, kind, parent_id, owner_id, version, full_path';
const NAMESPACE_SELECT = `SELECT ${NAMESPACE_COLUMNS} FROM namespaces`;

/** A user's personal namespace: a top-level namespace named and pathed after the username. */
export async function insertPersonalNamespace(db: PoolClient, owner: { id: number; username: string; name: string }): Promise<NamespaceRow> {
  const { rows } = await db.query<NamespaceRow>(
    `WITH new_id AS (SELECT nextval(pg_get_serial_sequence('namespaces', 'id')) AS id)
     INSERT INTO namespaces (id, name, path, kind, owner_id, full_path, full_name, traversal_ids)
     SELECT id, $1, $1, 'user', $2, $1, $1, ARRAY[id] FROM new_id
     RETURNING ${NAMESPACE_COLUMNS}`,
    [owner.username, owner.id],
  );
  return rows[0]!;
}

export async function findNamespaceById(db: Queryable, id: number): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(`${NAMESPACE_SELECT} WHERE id = $1`, [id]);
  return rows[0];
}

export async function findNamespaceByFullPath(db: Queryable, fullPath: string): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(`${NAMESPACE_SELECT} WHERE lower(full_path) = lower($1)`, [fullPath]);
  return rows[0];
}

/** A renamed user's personal namespace follows the username (name, path, full path); the new row. */
export async function renamePersonalNamespace(db: PoolClient, ownerId: number, username: string): Promise<NamespaceRow | undefined> {
  const { rows } = await db.query<NamespaceRow>(
    `UPDATE namespaces SET name = $2, path = $2, full_path = $2, full_name = $2, version = version + 1, updated_at = now()
     WHERE owner_id = $1 AND kind = 'user' RETURNING ${NAMESPACE_COLUMNS}`,
    [ownerId, username],
  );
  return rows[0];
}
