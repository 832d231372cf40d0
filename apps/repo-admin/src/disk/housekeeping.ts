import { runGit } from './git';
import type { GitRunner } from './bare-repository';

/** Eager housekeeping: `git gc` (packs refs, repacks every object into one pack, prunes loose objects past git's grace). */
export async function gcRepository(git: GitRunner, dir: string): Promise<void> {
  await runGit(git.gitBin, ['gc', '--quiet'], { dir, timeoutMs: git.timeoutMs, signal: git.signal });
}

/** Gitaly's PruneUnreachableObjects: unreachable objects older than 30 minutes go. */
export async function pruneRepository(git: GitRunner, dir: string): Promise<void> {
  await runGit(git.gitBin, ['prune', '--expire=30.minutes.ago'], { dir, timeoutMs: git.timeoutMs, signal: git.signal });
}
