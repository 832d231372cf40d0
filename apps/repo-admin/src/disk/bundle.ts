import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { GitRunner } from './bare-repository';
import { syncDir, syncFile } from './durable-fs';
import { UPLOADS_TMP_DIR } from '../domain/upload-rules';
import { BASE_ENV, runGit } from './git';

/** Whether the repository has any ref (branch, tag, anything): a bundle of no ref cannot be made. */
export async function hasAnyRef(git: GitRunner, dir: string): Promise<boolean> {
  const out = await runGit(git.gitBin, ['for-each-ref', '--count=1', '--format=%(refname)'], { dir, timeoutMs: git.timeoutMs });
  return out.toString().trim() !== '';
}

/**
 * `git bundle create - --all` as a stream (stdout), read only as fast as the consumer takes it. A failing git (or its
 * time limit) makes the stream fail, never end as if the bundle were complete; a consumer that stops kills git.
 */
export function bundleStream(git: GitRunner, dir: string): Readable {
  const child = spawn(git.gitBin, ['-C', dir, 'bundle', 'create', '--quiet', '-', '--all'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...BASE_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), git.timeoutMs);
  async function* bytes(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) yield chunk;
      // stdout can end before a failing exit: the bundle is complete only once git exited 0.
      const code = await exited;
      if (code !== 0) throw new Error(`git bundle create failed (${code === null ? 'killed' : `exit ${code}`}): ${stderr.trim()}`);
    } finally {
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}

/** The bundle could not be verified (corrupt, truncated, or not a bundle). */
export class BundleInvalid extends Error {
  constructor(reason: string) {
    super(`the bundle does not verify: ${reason}`);
    this.name = 'BundleInvalid';
  }
}

/**
 * Creates the bare repository `target` from `chunks` (a bundle; none for an empty repository), HEAD on `head`: the bundle
 * is written to a temporary file and verified (`git bundle verify`), the repository built beside its final path and
 * renamed into place, so a failure leaves nothing at `target`. Returns the refs it has.
 */
export async function restoreFromBundle(
  git: GitRunner, root: string, target: string, head: string, chunks: AsyncIterable<Buffer> | undefined,
): Promise<number> {
  const parent = path.dirname(target);
  await mkdir(parent, { recursive: true });
  const building = `${target}+${randomUUID()}+restoring`;
  const bundle = path.join(root, UPLOADS_TMP_DIR, `${randomUUID()}.bundle`);
  const gitOpts = { timeoutMs: git.timeoutMs };
  try {
    await runGit(git.gitBin, ['init', '--bare', '--quiet', `--initial-branch=${head}`, '--', building], gitOpts);
    if (chunks) {
      await mkdir(path.dirname(bundle), { recursive: true });
      await pipeline(chunks, createWriteStream(bundle, { flags: 'wx', mode: 0o640 }));
      await syncFile(bundle);
      try {
        await runGit(git.gitBin, ['bundle', 'verify', '--quiet', bundle], { ...gitOpts, dir: building });
      } catch (err) {
        throw new BundleInvalid(err instanceof Error ? err.message : String(err));
      }
      await runGit(git.gitBin, ['fetch', '--quiet', '--no-write-fetch-head', bundle, '+refs/*:refs/*'], { ...gitOpts, dir: building });
    }
    await runGit(git.gitBin, ['symbolic-ref', 'HEAD', `refs/heads/${head}`], { ...gitOpts, dir: building });
    const refs = (await runGit(git.gitBin, ['for-each-ref', '--format=%(refname)'], { ...gitOpts, dir: building })).toString().split('\n').filter(Boolean).length;
    await rename(building, target);
    await syncDir(parent);
    return refs;
  } catch (err) {
    await rm(building, { recursive: true, force: true });
    throw err;
  } finally {
    await unlink(bundle).catch(() => undefined);
  }
}
