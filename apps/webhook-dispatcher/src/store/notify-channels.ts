import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

/**
 * The NOTIFY channels of one dispatcher schema: `<schema>_<suffix>`, or `<suffix>_<md5 of the schema>` when that would
 * pass PostgreSQL's 63-byte identifier limit (long per-test schemas). `notify` computes the same name in SQL.
 */
export function channelName(schema: string, suffix: string): string {
  const plain = `${schema}_${suffix}`;
  return plain.length <= 63 ? plain : `${suffix}_${createHash('md5').update(schema).digest('hex')}`;
}

/** NOTIFY `suffix`'s channel of the current schema (delivered at commit). */
export async function notify(db: Pool | PoolClient, suffix: 'deliveries' | 'settings'): Promise<void> {
  await db.query(
    `SELECT pg_notify(CASE WHEN length(current_schema()) + 1 + length($1::text) <= 63 THEN current_schema() || '_' || $1 ELSE $1 || '_' || md5(current_schema()) END, '')`,
    [suffix],
  );
}
