import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { runGit } from './git';
import { forEachGitRecord } from './git-lines';
import type { GitRunner } from './bare-repository';

const vanished = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException)?.code ?? '');

/**
 * Bytes of the regular files under `dir` (what the repository takes on disk; symlinks not followed), walked one
 * directory at a time. A missing directory is 0; files vanishing meanwhile (a gc, a removal) are not counted.
 */
export async function directorySize(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (vanished(err)) return 0;
    throw err;
  }
  let total = 0;
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await directorySize(p);
    else if (e.isFile()) {
      try {
        total += (await lstat(p)).size;
      } catch (err) {
        if (!vanished(err)) throw err;
      }
    }
  }
  return total;
}

/** The commit `rev` names (e.g. `refs/heads/main`), or undefined when there is none (an unborn branch). */
export async function resolveCommit(git: GitRunner, dir: string, rev: string): Promise<string | undefined> {
  const out = await runGit(git.gitBin, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { dir, timeoutMs: git.timeoutMs })
    .catch(() => Buffer.alloc(0));
  const sha = out.toString().trim();
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha) ? sha : undefined;
}

/** Commits reachable from a commit (`git rev-list --count`): GitLab's `commit_count` of the default branch. */
export async function commitCount(git: GitRunner, dir: string, commit: string): Promise<number> {
  const out = await runGit(git.gitBin, ['rev-list', '--count', commit, '--'], { dir, timeoutMs: git.timeoutMs });
  return Number(out.toString().trim()) || 0;
}

/**
 * Every blob of a commit's tree with its size (`git ls-tree -r -l -z`), streamed: `onBlob(path, size)` per file. Symlinks
 * and submodules are not files and are left out.
 */
export function forEachTreeBlob(git: GitRunner, dir: string, commit: string, onBlob: (path: string, size: number) => void): Promise<void> {
  return forEachGitRecord(git.gitBin, ['ls-tree', '-r', '-l', '-z', '--full-tree', commit], { dir, timeoutMs: git.timeoutMs }, 0, (record) => {
    // "<mode> SP <type> SP <object> SP+ <size> TAB <path>"
    const tab = record.indexOf(9);
    if (tab < 0) return;
    const [mode, type, , size] = record.subarray(0, tab).toString('latin1').split(/ +/);
    if (type !== 'blob' || mode === '120000') return;
    onBlob(record.subarray(tab + 1).toString('utf8'), Number(size) || 0);
  });
}
