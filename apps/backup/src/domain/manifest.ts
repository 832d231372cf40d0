import type { MigrationTable, SchemaMap, ServiceName } from './services';
import { SERVICES } from './services';

/** What a backup is, written last as `manifest.json` in its directory. No I/O here. */

/** Bumped when the layout of a backup changes; a restore refuses a format it does not know. */
export const FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';
/** The one pg_dump of every schema (custom format). */
export const DATABASE_FILE = 'database.dump';

export interface BackupFileEntry {
  /** Relative to the backup directory, `/`-separated. */
  path: string;
  size: number;
  sha256: string;
}

export interface RepositoryEntry {
  projectId: number;
  wiki: boolean;
  /** The hashed path its record names (repo_admin.repositories.disk_path; for a wiki, beside it). */
  diskPath: string;
  /** On disk when it was copied: false for a repository removed between the snapshot and its copy. */
  exists: boolean;
  /** No ref: no bundle. */
  empty: boolean;
  head: string;
  /** Its bundle in the backup (undefined when empty or missing). */
  bundle?: string;
}

export interface StoredFileEntry {
  projectId: number;
  uploader: string;
  secret: string;
  fileName: string;
  /** Its copy in the backup; undefined when the file was gone (removed after the snapshot). */
  file?: string;
}

export interface Manifest {
  formatVersion: number;
  createdAt: string;
  /** The code that took it: package version and git commit (when known). */
  code: { version: string; commit: string };
  /** Each service's schema as it was named, and the migrations applied to it, by migration table. */
  schemas: Record<ServiceName, { schema: string; migrations: Partial<Record<MigrationTable, string[]>> }>;
  repositories: RepositoryEntry[];
  storedFiles: StoredFileEntry[];
  files: BackupFileEntry[];
  totals: { bytes: number; files: number; repositories: number; emptyRepositories: number; missingRepositories: number; storedFiles: number; missingStoredFiles: number };
  durationsMs: { database: number; repositories: number; storedFiles: number; total: number };
}

/** Why a manifest cannot be restored by this code, or undefined. */
export function manifestProblem(m: unknown): string | undefined {
  if (!m || typeof m !== 'object') return 'the manifest is not a JSON object';
  const manifest = m as Partial<Manifest>;
  if (manifest.formatVersion !== FORMAT_VERSION) return `backup format ${String(manifest.formatVersion)} is not supported (this code reads format ${FORMAT_VERSION})`;
  if (!manifest.schemas || SERVICES.some((s) => !manifest.schemas![s])) return 'the manifest does not name every service schema';
  if (!Array.isArray(manifest.files) || !Array.isArray(manifest.repositories) || !Array.isArray(manifest.storedFiles)) return 'the manifest lists no files';
  for (const f of manifest.files) if (!isSafeRelativePath(f.path)) return `the manifest names an unsafe path: ${JSON.stringify(f.path)}`;
  return undefined;
}

/** A path inside the backup directory: relative, no `..`, no empty segment. */
export function isSafeRelativePath(p: string): boolean {
  return typeof p === 'string' && p.length > 0 && p.length <= 4096 && !p.startsWith('/') && !p.includes('\\') && !p.includes('\0') &&
    p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/**
 * Migrations the backup's schemas had that this code does not know: the backup comes from a newer release, whose schema
 * this code may not read. Empty when the code knows every one (it runs its newer ones after the restore).
 */
export function unknownMigrations(manifest: Pick<Manifest, 'schemas'>, code: Record<ServiceName, Partial<Record<MigrationTable, string[]>>>): string[] {
  const unknown: string[] = [];
  for (const service of SERVICES) {
    const applied = manifest.schemas[service]?.migrations ?? {};
    for (const [table, names] of Object.entries(applied) as [MigrationTable, string[]][]) {
      const known = new Set(code[service]?.[table] ?? []);
      for (const name of names) if (!known.has(name)) unknown.push(`${service} ${table} ${name}`);
    }
  }
  return unknown;
}

/** Source schema → target schema, for every service. */
export function schemaRenames(manifest: Pick<Manifest, 'schemas'>, target: SchemaMap): Map<string, string> {
  return new Map(SERVICES.map((s) => [manifest.schemas[s].schema, target[s]]));
}

/** Where a repository's bundle goes in the backup (its hashed path: one per project, no two alike). */
export const bundlePath = (diskPath: string) => `repositories/${diskPath.replace(/\.git$/, '')}.bundle`;

/** Where an upload's or avatar's file goes in the backup. */
export const storedFilePath = (f: Pick<StoredFileEntry, 'projectId' | 'uploader' | 'secret' | 'fileName'>) =>
  `files/${f.projectId}/${f.uploader}/${f.secret}/${f.fileName}`;
