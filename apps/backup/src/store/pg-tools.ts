import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SchemaRenamer } from '../domain/schema-rename';

const bin = (dir: string, name: string) => (dir ? path.join(dir, name) : name);

/** libpq's connection settings from a URL, as environment (no password on a command line). */
function libpqEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const u = new URL(databaseUrl);
  return {
    ...process.env,
    PGHOST: u.hostname, PGPORT: u.port || '5432', PGUSER: decodeURIComponent(u.username), PGPASSWORD: decodeURIComponent(u.password),
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)), PGAPPNAME: 'backup',
  };
}

function exitOf(child: ReturnType<typeof spawn>, what: string, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (exit ${code}): ${stderr().trim()}`))));
  });
}

function collect(child: ReturnType<typeof spawn>): () => string {
  let text = '';
  child.stderr?.on('data', (d: Buffer) => (text = (text + d.toString()).slice(-4000)));
  return () => text;
}

/** One pg_dump of `schemas` in the exported snapshot, custom format (compressed), into `file`. */
export async function dumpSchemas(opts: { databaseUrl: string; binDir: string; snapshot: string; schemas: string[]; file: string }): Promise<void> {
  const args = ['--format=custom', `--snapshot=${opts.snapshot}`, '--no-owner', '--no-privileges', `--file=${opts.file}`, ...opts.schemas.map((s) => `--schema=${s}`)];
  const child = spawn(bin(opts.binDir, 'pg_dump'), args, { env: libpqEnv(opts.databaseUrl), stdio: ['ignore', 'ignore', 'pipe'] });
  await exitOf(child, 'pg_dump', collect(child));
}

/**
 * Restores a dump in one transaction: `DROP SCHEMA … CASCADE` of every target schema, then `pg_restore -f -`'s SQL with
 * the schemas renamed, through `psql --single-transaction` (ON_ERROR_STOP): a failure leaves the database as it was.
 */
export async function restoreSchemas(opts: { databaseUrl: string; binDir: string; file: string; renames: ReadonlyMap<string, string> }): Promise<void> {
  const env = libpqEnv(opts.databaseUrl);
  const restore = spawn(bin(opts.binDir, 'pg_restore'), ['--no-owner', '--no-privileges', '--file=-', opts.file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const psql = spawn(bin(opts.binDir, 'psql'), ['--no-psqlrc', '--quiet', '--single-transaction', '-v', 'ON_ERROR_STOP=1', '--file=-'], {
    env, stdio: ['pipe', 'ignore', 'pipe'],
  });
  const restoreDone = exitOf(restore, 'pg_restore', collect(restore));
  const psqlDone = exitOf(psql, 'psql', collect(psql));
  const renamer = new SchemaRenamer(opts.renames);
  const feed = (async () => {
    const write = (text: string) => (psql.stdin!.write(text) ? Promise.resolve() : new Promise<void>((r) => psql.stdin!.once('drain', () => r())));
    for (const target of opts.renames.values()) await write(`DROP SCHEMA IF EXISTS ${target} CASCADE;\n`);
    for await (const line of createInterface({ input: restore.stdout!, crlfDelay: Infinity })) await write(`${renamer.line(line)}\n`);
    psql.stdin!.end();
  })();
  feed.catch(() => psql.stdin!.destroy());
  await Promise.all([restoreDone, psqlDone, feed]);
}

