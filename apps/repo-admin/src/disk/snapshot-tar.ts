import { constants } from 'node:fs';
import { open, readdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { pack as tarPack, type Pack } from 'tar-stream';
import { SNAPSHOT_PARTS } from '../domain/snapshot-rules';

const vanished = (err: unknown) => ['ENOENT', 'ENOTDIR', 'ELOOP'].includes((err as NodeJS.ErrnoException)?.code ?? '');

/** Waits until a tar entry takes more data; fails when the tar stream is torn down meanwhile (the reader went away). */
function drained(entry: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      entry.off('drain', onDrain);
      entry.off('close', onClose);
      entry.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new Error('snapshot stream closed'));
    entry.on('drain', onDrain);
    entry.on('close', onClose);
    entry.on('error', done);
  });
}

/**
 * One file as a tar entry, streamed from an open handle (its size from that handle: a ref rewritten meanwhile is a new
 * file, the open one stays whole). A file gone meanwhile, a symlink or anything but a regular file is skipped.
 */
async function addFile(pack: Pack, root: string, rel: string): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(path.join(root, rel), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if (vanished(err)) return;
    throw err;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return;
    let entry!: Writable;
    const written = new Promise<void>((resolve, reject) => {
      entry = pack.entry({ name: rel, type: 'file', size: st.size, mode: st.mode & 0o7777, mtime: st.mtime, uid: st.uid, gid: st.gid },
        (err) => (err ? reject(err) : resolve())) as unknown as Writable;
    });
    written.catch(() => undefined); // awaited below; a torn-down pack must not leave it unhandled
    if (st.size > 0) {
      for await (const chunk of fh.createReadStream({ start: 0, end: st.size - 1, autoClose: false, highWaterMark: 256 * 1024 })) {
        if (!entry.write(chunk)) await drained(entry);
      }
    }
    entry.end();
    await written;
  } finally {
    await fh.close();
  }
}

async function addDirectory(pack: Pack, rel: string, mode: number, mtime: Date): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    pack.entry({ name: rel, type: 'directory', mode: mode & 0o7777, mtime }, (err) => (err ? reject(err) : resolve()));
  });
}

/** A directory and everything under it, depth first in name order (Go's filepath.Walk), files filtered by `only`. */
async function addTree(pack: Pack, root: string, rel: string, only?: (relPath: string) => boolean): Promise<void> {
  const dir = path.join(root, rel);
  let handle;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (err) {
    if (vanished(err)) return;
    throw err;
  }
  let st;
  try {
    st = await handle.stat();
  } finally {
    await handle.close();
  }
  await addDirectory(pack, rel, st.mode, st.mtime);
  let entries;
  try {
    entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (err) {
    if (vanished(err)) return;
    throw err;
  }
  for (const e of entries) {
    const child = `${rel}/${e.name}`;
    if (e.isDirectory()) await addTree(pack, root, child, only);
    else if (e.isFile() && (!only || only(child))) await addFile(pack, root, child);
  }
}

/**
 * An uncompressed tar of the repository at `dir` with the files Gitaly's snapshot takes (domain/snapshot-rules.ts),
 * produced as it is read: each file is streamed from disk only when the reader wants more (back-pressure), so memory
 * stays bounded whatever the repository's size. Destroying the stream stops the walk and closes the open file.
 */
export function snapshotTar(dir: string): Pack {
  const pack = tarPack();
  void (async () => {
    for (const part of SNAPSHOT_PARTS) {
      if (pack.destroyed) return;
      if (part.kind === 'file') await addFile(pack, dir, part.path);
      else await addTree(pack, dir, part.path, part.only);
    }
    pack.finalize();
  })().catch((err: Error) => pack.destroy(err));
  return pack;
}
