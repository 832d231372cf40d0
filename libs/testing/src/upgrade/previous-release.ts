import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../infra';

const run = promisify(execFile);

/** The file naming the previous release's commit (comments start with #). */
export const PREVIOUS_RELEASE_FILE = path.join(REPO_ROOT, 'deploy/upgrade/previous-release');

/** The previous release's commit id, checked to be in this clone (a shallow clone would not have it). */
export async function previousRelease(): Promise<string> {
  const lines = readFileSync(PREVIOUS_RELEASE_FILE, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const sha = lines[0];
  if (lines.length !== 1 || !sha || !/^[0-9a-f]{40}$/.test(sha)) throw new Error(`${PREVIOUS_RELEASE_FILE}: one full commit id expected`);
  try {
    await run('git', ['-C', REPO_ROOT, 'cat-file', '-e', `${sha}^{commit}`]);
  } catch {
    throw new Error(`the previous release ${sha} is not in this clone (a shallow clone? git fetch --unshallow)`);
  }
  return sha;
}

/** Writes `paths` (relative to the repository root) as they were at `commit` under `dir`. */
export async function extractAt(commit: string, paths: string[], dir: string): Promise<void> {
  await run('bash', ['-o', 'pipefail', '-c', 'git -C "$0" archive "$1" -- "${@:3}" | tar -x -C "$2"', REPO_ROOT, commit, dir, ...paths], { maxBuffer: 64 * 1024 * 1024 });
}

/** The files under `dir` (relative to the repository root) at `commit`, with their contents. Missing dir: none. */
export async function filesAt(commit: string, dir: string): Promise<Map<string, string>> {
  const { stdout } = await run('git', ['-C', REPO_ROOT, 'ls-tree', '--name-only', `${commit}:${dir}`]).catch(() => ({ stdout: '' }));
  const out = new Map<string, string>();
  for (const name of stdout.split('\n').filter(Boolean)) {
    const { stdout: type } = await run('git', ['-C', REPO_ROOT, 'cat-file', '-t', `${commit}:${dir}/${name}`]);
    if (type.trim() !== 'blob') continue;
    const { stdout: content } = await run('git', ['-C', REPO_ROOT, 'show', `${commit}:${dir}/${name}`], { maxBuffer: 64 * 1024 * 1024 });
    out.set(name, content);
  }
  return out;
}
