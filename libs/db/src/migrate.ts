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
 * node-pg-migrate holds an advisory lock while it runs, so replicas that start
 * together do not race.
 */
export async function runMigrations(opts: {
  url: string;
  schema: string;
  sets: MigrationSet[];
  log?: (msg: string) => void;
}): Promise<string[]> {
  const schema = assertIdentifier(opts.schema);
  const applied: string[] = [];
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
      log: opts.log ?? (() => undefined),
      verbose: false,
    });
    applied.push(...ran.map((m) => m.name));
  }
  return applied;
}
