import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { MigrationTable, ServiceName } from '../domain/services';
import { SERVICES } from '../domain/services';

/** The repository (or image) root: apps/backup/dist/app (or src/app) → ../../../.. */
export const CODE_ROOT = path.resolve(__dirname, '../../../..');

/** The code's version (package.json) and commit (GLP_COMMIT, else `git rev-parse HEAD` when it is a checkout). */
export function codeVersion(): { version: string; commit: string } {
  // The image keeps the workspaces' package.json, not the root's: both carry the release's version.
  const manifest = [path.join(CODE_ROOT, 'package.json'), path.join(CODE_ROOT, 'apps/backup/package.json')].find((f) => existsSync(f))!;
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  let commit = process.env.GLP_COMMIT ?? '';
  if (!commit) {
    try {
      commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: CODE_ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    } catch {
      commit = 'unknown';
    }
  }
  return { version, commit };
}

const namesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /^\d+_.*\.sql$/.test(f)).map((f) => f.replace(/\.sql$/, '')).sort() : []);

/** The migrations this code has for each service, by migration table (what libs/db records as their names). */
export function codeMigrations(): Record<ServiceName, Partial<Record<MigrationTable, string[]>>> {
  const events = namesIn(path.join(CODE_ROOT, 'libs/events/migrations'));
  return Object.fromEntries(SERVICES.map((s) => {
    const dir = path.join(CODE_ROOT, 'apps', s, 'migrations');
    return [s, { pgmigrations: namesIn(dir), events_pgmigrations: events, pgmigrations_post: namesIn(path.join(dir, 'post')) }];
  })) as Record<ServiceName, Partial<Record<MigrationTable, string[]>>>;
}

/** The service's built entry point, which `migrate --post` applies every migration of the code to a schema and exits. */
export const serviceMain = (service: ServiceName) => path.join(CODE_ROOT, 'apps', service, 'dist', 'main.js');
