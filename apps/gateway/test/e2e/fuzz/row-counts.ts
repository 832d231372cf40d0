import type { Pool } from 'pg';

/** Row counts of every table of a stack's schemas, and waiting until the asynchronous parts (outbox relay, consumer) are idle. */

export type RowCounts = Record<string, number>;

/** Row counts; an outbox counts its unpublished rows (published ones stay for the retention window, for backups). */
export async function rowCounts(pool: Pool, schemas: readonly string[]): Promise<RowCounts> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
      WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' ORDER BY 1`,
    [schemas],
  );
  if (tables.length === 0) throw new Error(`no tables in ${schemas.join(', ')}`);
  const select = tables.map((t, i) => `(SELECT count(*)::int FROM ${t.name}${t.name.endsWith('.outbox') ? ' WHERE published_at IS NULL' : ''}) AS c${i}`).join(', ');
  const { rows } = await pool.query<Record<string, number>>(`SELECT ${select}`);
  return Object.fromEntries(tables.map((t, i) => [t.name, rows[0]![`c${i}`]!]));
}

/**
 * Counts once nothing moves any more: every outbox drained, the projects' namespace read model holding every
 * identity namespace (the consumer has caught up; topics have one partition), and the counts equal over `stableMs`.
 */
export async function settledRowCounts(pool: Pool, schemas: { identity: string; projects: string; accessRequests: string }, stableMs = 1000, timeoutMs = 30_000): Promise<RowCounts> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let since = Date.now();
  for (;;) {
    const counts = await rowCounts(pool, [schemas.identity, schemas.projects, schemas.accessRequests]);
    const key = JSON.stringify(counts);
    const drained = Object.entries(counts).every(([name, n]) => !name.endsWith('.outbox') || n === 0);
    const replicated = counts[`${schemas.projects}.namespaces`] === counts[`${schemas.identity}.namespaces`];
    if (key !== last || !drained || !replicated) {
      last = key;
      since = Date.now();
    } else if (Date.now() - since >= stableMs) return counts;
    if (Date.now() > deadline) throw new Error(`row counts did not settle within ${timeoutMs} ms: ${key}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
