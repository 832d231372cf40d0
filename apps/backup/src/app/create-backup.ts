import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@glp/service-kit';
import type { RepoAdminBackupClient } from '../clients/repo-admin';
import {
  bundlePath, DATABASE_FILE, FORMAT_VERSION, MANIFEST_FILE, storedFilePath, type BackupFileEntry, type Manifest, type RepositoryEntry, type StoredFileEntry,
} from '../domain/manifest';
import { SERVICES, type SchemaMap } from '../domain/services';
import { dumpSchemas } from '../store/pg-tools';
import { DatabaseSnapshot } from '../store/snapshot';
import { eachLimit, hashFile, writeHashed } from './backup-files';
import { codeVersion } from './code-info';

export interface CreateBackupOptions {
  databaseUrl: string;
  schemas: SchemaMap;
  repoAdmin: RepoAdminBackupClient;
  /** The directory backups go in; this one is `<backupDir>/<timestamp>_glp_backup`. */
  backupDir: string;
  concurrency: number;
  pgBinDir: string;
  logger: Logger;
  /** Runs once the database snapshot is taken, before anything is copied from the disk (tests write here). */
  afterSnapshot?: () => Promise<void>;
}

const isNotFound = (err: unknown) => (err as { kind?: string })?.kind === 'not_found';

/**
 * `npm run backup`: one snapshot of the database (T0) holds every service's schema (pg_dump `--snapshot`) and names
 * what else is copied: the repositories of repo-admin's records and the files of its upload rows as of T0, each
 * fetched from repo-admin afterwards (a repository created after T0 is not in the backup; its project is not either).
 * Written into `<name>.partial`, renamed to `<name>` once the manifest is written: a directory without `.partial` is complete.
 */
export async function createBackup(opts: CreateBackupOptions): Promise<{ dir: string; manifest: Manifest }> {
  const started = Date.now();
  const name = `${new Date(started).toISOString().replace(/[:.]/g, '-')}_glp_backup`;
  const dir = path.join(opts.backupDir, name);
  const partial = `${dir}.partial`;
  await mkdir(partial, { recursive: true });
  try {
    const files: BackupFileEntry[] = [];
    const snapshot = await DatabaseSnapshot.open(opts.databaseUrl);
    let migrations!: Awaited<ReturnType<DatabaseSnapshot['appliedMigrations']>>;
    let records!: Awaited<ReturnType<DatabaseSnapshot['repositories']>>;
    let stored!: Awaited<ReturnType<DatabaseSnapshot['storedFiles']>>;
    try {
      const dump = dumpSchemas({ databaseUrl: opts.databaseUrl, binDir: opts.pgBinDir, snapshot: snapshot.id, schemas: SERVICES.map((s) => opts.schemas[s]), file: path.join(partial, DATABASE_FILE) });
      // Read while pg_dump runs (one connection: one query at a time); the dump failing wins over these.
      const lists = (async () => {
        migrations = await snapshot.appliedMigrations(opts.schemas);
        records = await snapshot.repositories(opts.schemas['repo-admin']);
        stored = await snapshot.storedFiles(opts.schemas['repo-admin']);
      })();
      await Promise.all([dump, lists]);
    } finally {
      await snapshot.close();
    }
    files.push(await hashFile(partial, DATABASE_FILE));
    const databaseDone = Date.now();
    opts.logger.info({ ms: databaseDone - started, repositories: records.length, files: stored.length }, 'database dumped');
    await opts.afterSnapshot?.();

    const repositories: RepositoryEntry[] = [];
    const candidates = records.flatMap((r) => [
      { projectId: r.projectId, wiki: false, diskPath: r.diskPath, defaultBranch: r.defaultBranch },
      { projectId: r.projectId, wiki: true, diskPath: r.diskPath.replace(/\.git$/, '.wiki.git'), defaultBranch: r.defaultBranch },
    ]);
    await eachLimit(candidates, opts.concurrency, async (c) => {
      const { head, chunks } = await opts.repoAdmin.backupRepository(c.projectId, c.wiki);
      if (!head.exists || head.empty) for await (const _ of chunks) void _; // the stream ends after the header
      // A wiki is created by its first write: one that is not on disk is not part of the project's state.
      if (c.wiki && !head.exists) return;
      const entry: RepositoryEntry = { projectId: c.projectId, wiki: c.wiki, diskPath: c.diskPath, exists: head.exists, empty: head.empty, head: head.head || c.defaultBranch };
      if (head.exists && !head.empty) {
        const file = await writeHashed(partial, bundlePath(c.diskPath), chunks);
        files.push(file);
        entry.bundle = file.path;
      }
      repositories.push(entry);
    });
    const repositoriesDone = Date.now();

    const storedFiles: StoredFileEntry[] = [];
    await eachLimit(stored, opts.concurrency, async (f) => {
      const entry: StoredFileEntry = { ...f };
      try {
        const { chunks } = await opts.repoAdmin.backupFile(f);
        const file = await writeHashed(partial, storedFilePath(f), chunks);
        files.push(file);
        entry.file = file.path;
      } catch (err) {
        if (!isNotFound(err)) throw err; // removed after T0: its row is restored, its file is not
      }
      storedFiles.push(entry);
    });
    const done = Date.now();

    repositories.sort((a, b) => a.projectId - b.projectId || Number(a.wiki) - Number(b.wiki));
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const manifest: Manifest = {
      formatVersion: FORMAT_VERSION,
      createdAt: new Date(started).toISOString(),
      code: codeVersion(),
      schemas: Object.fromEntries(SERVICES.map((s) => [s, { schema: opts.schemas[s], migrations: migrations[s] }])) as Manifest['schemas'],
      repositories,
      storedFiles,
      files,
      totals: {
        bytes: files.reduce((n, f) => n + f.size, 0),
        files: files.length,
        repositories: repositories.length,
        emptyRepositories: repositories.filter((r) => r.exists && r.empty).length,
        missingRepositories: repositories.filter((r) => !r.exists).length,
        storedFiles: storedFiles.length,
        missingStoredFiles: storedFiles.filter((f) => !f.file).length,
      },
      durationsMs: { database: databaseDone - started, repositories: repositoriesDone - databaseDone, storedFiles: done - repositoriesDone, total: Date.now() - started },
    };
    await writeFile(path.join(partial, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    await rename(partial, dir);
    return { dir, manifest };
  } catch (err) {
    await rm(partial, { recursive: true, force: true });
    throw err;
  }
}
