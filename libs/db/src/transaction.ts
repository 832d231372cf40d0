import type { Pool, PoolClient } from 'pg';

/** Runs fn in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection that cannot even roll back is broken: the pool destroys it rather than hand it out again.
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Postgres error helpers for store code. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * A row referenced by the write is gone (Postgres 23503): in a use case this is a race with a deletion (the project was
 * read a moment before and deleted since), answered as the missing thing rather than a server error.
 */
export function isForeignKeyViolation(err: unknown): boolean {
  return (err as { code?: string })?.code === '23503';
}
