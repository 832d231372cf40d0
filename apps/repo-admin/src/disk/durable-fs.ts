import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a write needs before it is acknowledged so that it outlives a crash of the machine, not only of the process:
 * the file's bytes on disk (fsync of the file) and its name in its directory (fsync of the directory, after a rename or
 * a create). Linux only guarantees a new directory entry once its directory has been synced.
 */

/** Flushes a file's data and metadata to disk. */
export async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a directory's entries (names created, renamed or removed in it) to disk. */
export const syncDir = syncFile;

/**
 * `mkdir -p` whose new directories are durable: each directory it created is synced in its parent, from the
 * outermost down. Answers `dir`.
 */
export async function mkdirDurable(dir: string): Promise<string> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return dir;
  const created: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    created.unshift(d);
    if (d === first || path.dirname(d) === d) break;
  }
  for (const d of created) await syncDir(path.dirname(d));
  return dir;
}
