import type { Pool, PoolClient } from '@glp/db';

type Queryable = Pool | PoolClient;

export interface UserReplica {
  id: number;
  username: string;
  name: string;
  state: string;
  avatar_url: string;
}

/** Inserts or refreshes users of the read model (one statement for any number). */
export async function upsertUsers(db: Queryable, users: UserReplica[]): Promise<void> {
  if (users.length === 0) return;
  await db.query(
    `INSERT INTO users (id, username, name, state, avatar_url)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
     ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username, name = EXCLUDED.name, state = EXCLUDED.state,
       avatar_url = EXCLUDED.avatar_url, updated_at = now()`,
    [users.map((u) => u.id), users.map((u) => u.username), users.map((u) => u.name), users.map((u) => u.state), users.map((u) => u.avatar_url)],
  );
}

/** The users of the read model among these ids (any order; absent ids are left out). */
export async function usersByIds(db: Queryable, ids: number[]): Promise<UserReplica[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<UserReplica>(
    'SELECT id, username, name, state, avatar_url FROM users WHERE id = ANY($1::bigint[])',
    [ids],
  );
  return rows;
}

/** A deleted user: their project memberships and their row. */
export async function removeUser(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM project_members WHERE user_id = $1', [id]);
  await db.query('DELETE FROM users WHERE id = $1', [id]);
}
