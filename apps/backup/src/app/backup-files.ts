import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BackupFileEntry } from '../domain/manifest';

/** Writes `chunks` to `<dir>/<relative>` (a new file), hashing as it goes: the manifest's entry for it. */
export async function writeHashed(dir: string, relative: string, chunks: AsyncIterable<Buffer>): Promise<BackupFileEntry> {
  const file = path.join(dir, ...relative.split('/'));
  await mkdir(path.dirname(file), { recursive: true });
  const hash = createHash('sha256');
  let size = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      hash.update(chunk);
      size += chunk.length;
      yield chunk;
    }
  }
  await pipeline(counted(), createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  return { path: relative, size, sha256: hash.digest('hex') };
}

/** The manifest's entry for a file already written (the database dump). */
export async function hashFile(dir: string, relative: string): Promise<BackupFileEntry> {
  const file = path.join(dir, ...relative.split('/'));
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { path: relative, size, sha256: hash.digest('hex') };
}

/** Why a file of the backup does not match its manifest entry, or undefined. */
export async function fileProblem(dir: string, entry: BackupFileEntry): Promise<string | undefined> {
  const file = path.join(dir, ...entry.path.split('/'));
  const s = await stat(file).catch(() => undefined);
  if (!s?.isFile()) return `${entry.path}: missing`;
  if (s.size !== entry.size) return `${entry.path}: ${s.size} bytes, the manifest says ${entry.size}`;
  const actual = await hashFile(dir, entry.path);
  if (actual.sha256 !== entry.sha256) return `${entry.path}: sha256 ${actual.sha256}, the manifest says ${entry.sha256}`;
  return undefined;
}

/** A file of the backup as chunks. */
export const readChunks = (dir: string, relative: string): AsyncIterable<Buffer> =>
  createReadStream(path.join(dir, ...relative.split('/')), { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>;

/** Runs `fn` over `items`, at most `limit` at once; the first failure rejects (the others still settle). */
export async function eachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure;
}
