import { Client } from 'pg';
import { runner } from 'node-pg-migrate';
import { assertIdentifier } from './pool';

export interface MigrationSet {
  /** Folder of `NNNN_name.sql` files with `-- Up Migration` / `-- Down Migration` sections. */
  dir: string;
  /** The table that records which migrations of this set ran (one per set). */
  table: string;
}

/**
 * Applies migration sets, in order, to one schema (created when missing).
 * Replicas of one service that start together wait for each other on an advisory lock
 * keyed by the schema (node-pg-migrate's own lock is one constant for the whole
 * database, which would make two different services fail when they start together).
 */
export async function runMigrations(opts: {
  url: string;
  schema: string;
  sets: MigrationSet[];
  log?: (msg: string) => void;
}): Promise<string[]> {
  const schema = assertIdentifier(opts.schema);
  const applied: string[] = [];
  const lockClient = new Client({ connectionString: opts.url, application_name: `migrate:${schema}` });
  await lockClient.connect();
  try {
    await lockClient.query("SELECT pg_advisory_lock(hashtext('glp.migrate.' || $1::text))", [schema]);
    await runSets(opts, schema, applied);
  } finally {
    await lockClient.end().catch(() => undefined); // ending the session releases the lock
  }
  return applied;
}

async function runSets(opts: { url: string; sets: MigrationSet[]; log?: (msg: string) => void }, schema: string, applied: string[]): Promise<void> {
  for (const set of opts.sets) {
    const ran = await runner({
      databaseUrl: opts.url,
      dir: set.dir,
      migrationsTable: set.table,
      schema,
      migrationsSchema: schema,
      createSchema: true,
      createMigrationsSchema: true,
      direction: 'up',
      count: Infinity,
      checkOrder: true,
      singleTransaction: true,
      noLock: true,
      log: opts.log ?? (() => undefined),
      verbose: false,
    });
    applied.push(...ran.map((m) => m.name));
  }
}
