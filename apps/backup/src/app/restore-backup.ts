import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@glp/service-kit';
import type { RepoAdminBackupClient } from '../clients/repo-admin';
import { DATABASE_FILE, MANIFEST_FILE, manifestProblem, schemaRenames, unknownMigrations, type Manifest } from '../domain/manifest';
import { SERVICES, type SchemaMap, type ServiceName } from '../domain/services';
import { restoreSchemas } from '../store/pg-tools';
import { republishOutboxes, targetContents } from '../store/target';
import { eachLimit, fileProblem, readChunks } from './backup-files';
import { codeMigrations, serviceMain } from './code-info';

export interface RestoreBackupOptions {
  dir: string;
  databaseUrl: string;
  schemas: SchemaMap;
  repoAdmin: RepoAdminBackupClient;
  concurrency: number;
  pgBinDir: string;
  /** The restored stack's KAFKA_TOPIC_PREFIX: retained events are republished to its topics. */
  topicPrefix: string;
  /** Restore onto a stack that already holds data (it is replaced). */
  force: boolean;
  logger: Logger;
  /** The environment `migrate --post` of each service runs with (ACTOR_SECRET, NODE_ENV…). */
  env?: NodeJS.ProcessEnv;
}

/** Refused before anything changed: a bad or unreadable backup, a newer schema, a non-empty target without --force. */
export class RestoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefused';
  }
}

export interface RestoreSummary {
  repositories: number;
  storedFiles: number;
  republishedEvents: number;
  durationsMs: { verify: number; database: number; migrations: number; repositories: number; storedFiles: number; total: number };
}

function migrate(service: ServiceName, schema: string, databaseUrl: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serviceMain(service), 'migrate', '--post'], {
      env: { ...env, DATABASE_URL: databaseUrl, DB_SCHEMA: schema, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${service} migrations failed (exit ${code}): ${stderr.trim()}`))));
  });
}

/**
 * `npm run restore <backup>`: checks first, changes nothing until every check passed (the manifest's format, every
 * file's size and sha256, no migration newer than this code, an empty target unless `force`); then the database in one
 * transaction (every target schema dropped and restored, renamed when the target's schemas are named otherwise), the
 * code's newer migrations (phase `all`: restore runs on one node), every retained outbox row marked unpublished (the
 * relays republish them; consumers skip the ones they applied), then the repositories and files through repo-admin.
 */
export async function restoreBackup(opts: RestoreBackupOptions): Promise<RestoreSummary> {
  const started = Date.now();
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(path.join(opts.dir, MANIFEST_FILE), 'utf8')) as Manifest;
  } catch (err) {
    throw new RestoreRefused(`${path.join(opts.dir, MANIFEST_FILE)} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  const problem = manifestProblem(manifest);
  if (problem) throw new RestoreRefused(problem);
  const problems: string[] = [];
  await eachLimit(manifest.files, opts.concurrency, async (f) => {
    const p = await fileProblem(opts.dir, f);
    if (p) problems.push(p);
  });
  if (problems.length) throw new RestoreRefused(`the backup does not match its manifest (${problems.length} files): ${problems.slice(0, 10).join('; ')}`);
  const newer = unknownMigrations(manifest, codeMigrations());
  if (newer.length) throw new RestoreRefused(`the backup's schemas have migrations this code does not know (a newer release took it): ${newer.slice(0, 10).join(', ')}`);
  const contents = await targetContents(opts.databaseUrl, opts.schemas);
  if (contents.length && !opts.force) throw new RestoreRefused(`the target is not empty (${contents.join(', ')}); restore with --force to replace it`);
  const verified = Date.now();

  await restoreSchemas({ databaseUrl: opts.databaseUrl, binDir: opts.pgBinDir, file: path.join(opts.dir, DATABASE_FILE), renames: schemaRenames(manifest, opts.schemas) });
  const databaseDone = Date.now();
  for (const service of SERVICES) await migrate(service, opts.schemas[service], opts.databaseUrl, opts.env ?? process.env);
  const republishedEvents = await republishOutboxes(opts.databaseUrl, opts.schemas, opts.topicPrefix);
  const migrated = Date.now();
  opts.logger.info({ ms: migrated - verified, republishedEvents }, 'database restored and migrated');

  await eachLimit(manifest.repositories, opts.concurrency, async (r) => {
    const empty = !r.bundle;
    // A record whose repository was removed after the snapshot gets an empty repository: record and disk agree.
    await opts.repoAdmin.restoreRepository(
      { projectId: r.projectId, wiki: r.wiki, empty, head: r.head || 'main', replace: opts.force },
      empty ? (async function* () {})() : readChunks(opts.dir, r.bundle!),
    );
  });
  const repositoriesDone = Date.now();
  const files = manifest.storedFiles.filter((f) => f.file);
  await eachLimit(files, opts.concurrency, async (f) => {
    await opts.repoAdmin.restoreFile({ projectId: f.projectId, uploader: f.uploader, secret: f.secret, fileName: f.fileName }, opts.force, readChunks(opts.dir, f.file!));
  });
  const done = Date.now();
  return {
    repositories: manifest.repositories.length,
    storedFiles: files.length,
    republishedEvents,
    durationsMs: {
      verify: verified - started, database: databaseDone - verified, migrations: migrated - databaseDone, repositories: repositoriesDone - migrated,
      storedFiles: done - repositoriesDone, total: done - started,
    },
  };
}
