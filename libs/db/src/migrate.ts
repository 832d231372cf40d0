import { existsSync } from 'node:fs';
import path from 'node:path';
import { env } from '@glp/service-kit';
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

/**
 * Which of a service's migrations a process applies. `regular`: the expand steps, applied before a release's pods start
 * while the previous release still serves, so they never drop, rename or retype what it reads (checked by
 * `libs/db/test/integration/expand-contract.test.ts`). `all`: the regular ones, then the post-deployment ones
 * (`migrations/post/`), the contract steps, applied once no pod of the previous release is left.
 */
export type MigrationPhase = 'regular' | 'all';

/** The configuration field that makes a serving process apply its post-deployment migrations at start-up (one node). */
export const migrationEnv = {
  /** `npm start` and test stacks: true; a cluster runs them from the post-upgrade hook (`migrate --post`) instead. */
  MIGRATE_POST_DEPLOYMENT: env.bool(false),
};

/** The phase a process migrates: `main.js migrate --post` or MIGRATE_POST_DEPLOYMENT=true → all, otherwise regular. */
export function migrationPhase(argv: readonly string[], config: { MIGRATE_POST_DEPLOYMENT: boolean }): MigrationPhase {
  return argv.includes('--post') || config.MIGRATE_POST_DEPLOYMENT ? 'all' : 'regular';
}

/** Where a service's post-deployment migrations live, beside its regular ones. */
export const postDeploymentDir = (migrationsDir: string) => path.join(migrationsDir, 'post');

/**
 * A service's schema: its own regular migrations (`<dir>/NNNN_*.sql`, table `pgmigrations`), the shared sets (libs/events'
 * outbox), then, for phase `all`, its post-deployment ones (`<dir>/post/NNNN_*.sql`, table `pgmigrations_post`).
 */
export function runServiceMigrations(opts: {
  url: string; schema: string; dir: string; shared: MigrationSet[]; phase?: MigrationPhase; log?: (msg: string) => void;
}): Promise<string[]> {
  const sets: MigrationSet[] = [{ dir: opts.dir, table: 'pgmigrations' }, ...opts.shared];
  const post = postDeploymentDir(opts.dir);
  if ((opts.phase ?? 'all') === 'all' && existsSync(post)) sets.push({ dir: post, table: 'pgmigrations_post' });
  return runMigrations({ url: opts.url, schema: opts.schema, sets, log: opts.log });
}
