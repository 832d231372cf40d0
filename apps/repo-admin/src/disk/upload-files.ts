import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UPLOADS_TMP_DIR } from '../domain/upload-rules';
import { mkdirDurable, syncDir, syncFile } from './durable-fs';

/** The bytes came beyond the limit: nothing was kept. */
export class FileTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`upload beyond ${limit} bytes`);
    this.name = 'FileTooLarge';
  }
}

/** An absolute path for `relative` (relative to the storage root) that is certainly inside the root. */
export function insideRoot(root: string, relative: string): string {
  const base = path.resolve(root);
  const abs = path.resolve(base, relative);
  if (!abs.startsWith(base + path.sep)) throw new Error('path escapes the storage root');
  return abs;
}

const ignoreMissing = (err: unknown) => {
  if ((err as NodeJS.ErrnoException)?.code !== 'ENOENT') throw err;
};

/**
 * Writes `chunks` to a new temporary file under `@uploads/tmp/` as they come (never the whole file in memory; a slow
 * disk slows the reader through `drain`), failing with FileTooLarge as soon as more than `maxBytes` arrived. On any
 * failure (too large, a cancelled call, a disk error) the temporary file is removed before the error propagates.
 */
export async function receiveToTemp(root: string, chunks: AsyncIterable<Buffer>, maxBytes: number): Promise<{ tmpPath: string; size: number }> {
  const dir = insideRoot(root, UPLOADS_TMP_DIR);
  await mkdir(dir, { recursive: true });
  const tmpPath = path.join(dir, `${randomUUID()}.part`);
  let size = 0;
  async function* limited(): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      size += chunk.length;
      if (size > maxBytes) throw new FileTooLarge(maxBytes);
      yield chunk;
    }
  }
  const out = createWriteStream(tmpPath, { flags: 'wx', mode: 0o640 });
  out.on('error', () => undefined); // a write still in flight when the transfer fails reports late: pipeline already has the cause
  try {
    await pipeline(limited(), out);
    await syncFile(tmpPath); // the bytes are on disk before the file gets its name (placeFile)
    return { tmpPath, size };
  } catch (err) {
    await unlink(tmpPath).catch(ignoreMissing);
    throw err;
  }
}

/** Moves a received file to its place (relative to the root), creating its directory; durable when it resolves. */
export async function placeFile(root: string, tmpPath: string, relative: string): Promise<void> {
  const target = insideRoot(root, relative);
  await mkdirDurable(path.dirname(target));
  await rename(tmpPath, target);
  await syncDir(path.dirname(target));
}

/** Drops a temporary file (a failed upload). */
export const discardTemp = (tmpPath: string) => unlink(tmpPath).catch(ignoreMissing);

/** Whether the file is there, with its size. */
export async function fileSize(root: string, relative: string): Promise<number | undefined> {
  try {
    const s = await stat(insideRoot(root, relative));
    return s.isFile() ? s.size : undefined;
  } catch (err) {
    ignoreMissing(err);
    return undefined;
  }
}

/** A stream of the file's bytes, read as fast as the consumer takes them. */
export function openUploadFile(root: string, relative: string): ReadStream {
  return createReadStream(insideRoot(root, relative), { highWaterMark: 64 * 1024 });
}

/** Removes one stored file and its (then empty) secret directory. A missing file is already removed. */
export async function removeUploadFile(root: string, relative: string): Promise<void> {
  const file = insideRoot(root, relative);
  await unlink(file).catch(ignoreMissing);
  await rmdir(path.dirname(file)).catch(() => undefined); // only when empty (GitLab's prune_store_dir)
}

/** Removes a directory tree (a project's uploads or avatars): renamed aside first (atomic), then deleted. */
export async function removeTree(root: string, relative: string): Promise<void> {
  const dir = insideRoot(root, relative);
  const aside = `${dir}+${Date.now()}+deleted`;
  try {
    await rename(dir, aside);
  } catch (err) {
    ignoreMissing(err);
    return;
  }
  await rm(aside, { recursive: true, force: true });
}

/** Temporary files older than `olderThanMs` (left by a process that died mid-upload) are removed. */
export async function sweepTemp(root: string, olderThanMs: number, now = Date.now()): Promise<number> {
  const dir = insideRoot(root, UPLOADS_TMP_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    ignoreMissing(err);
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const s = await stat(file).catch(() => undefined);
    if (s && now - s.mtimeMs > olderThanMs) {
      await unlink(file).catch(ignoreMissing);
      removed++;
    }
  }
  return removed;
}
