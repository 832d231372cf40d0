import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { isValidBranchName } from '../domain/hashed-storage';
import { mkdirDurable, syncDir } from './durable-fs';

/** What `git init --bare` writes besides its templates (hook samples, info/exclude): enough for git to open it. */
const CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n';
const DESCRIPTION = "Unnamed repository; edit this file 'description' to name the repository.\n";
const EMPTY_DIRS = ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags'];

async function writeSynced(file: string, content: string): Promise<void> {
  const handle = await open(file, 'wx', 0o644);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * An empty bare repository at `dir` with HEAD on `branch`, written without a git process (a create is the hottest
 * repository job: one per new project). Built in a sibling directory, every file and directory entry synced, then
 * renamed into place and the rename synced: a crash leaves either no repository or a whole one, and once this resolves
 * it outlives a power loss. Answers false, touching nothing, when a repository is already there (a retried job).
 */
export async function initBareRepository(dir: string, branch: string): Promise<boolean> {
  if (!isValidBranchName(branch)) throw new Error(`invalid initial branch name: ${JSON.stringify(branch)}`);
  if (existsSync(path.join(dir, 'HEAD'))) return false;
  const parent = await mkdirDurable(path.dirname(dir));
  const tmp = `${dir.replace(/\.git$/, '')}+${randomBytes(6).toString('hex')}+init.git`;
  try {
    await mkdir(tmp, { mode: 0o755 });
    await Promise.all(EMPTY_DIRS.map((d) => mkdir(path.join(tmp, d), { recursive: true, mode: 0o755 })));
    // Every file's bytes and every new entry, synced at once: concurrent syncs share the filesystem's journal commits,
    // and under load each sequential round of syncs is a long wait (bench/README, repository ready).
    await Promise.all([
      writeSynced(path.join(tmp, 'HEAD'), `ref: refs/heads/${branch}\n`),
      writeSynced(path.join(tmp, 'config'), CONFIG),
      writeSynced(path.join(tmp, 'description'), DESCRIPTION),
      ...[path.join(tmp, 'objects'), path.join(tmp, 'refs')].map(syncDir),
    ]);
    await syncDir(tmp);
    if (existsSync(path.join(dir, 'HEAD'))) return false;
    // A directory that is there but is no repository (a crash of an older, in-place init) is replaced.
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    await syncDir(parent);
    return true;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
