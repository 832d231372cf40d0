import { spawn } from 'node:child_process';
import { parseRawCommit, DiffTreeParser, type ChangedPath, type CommitFacts } from '../domain/commit-records';
import { PUSH_RULES_BATCH_COMMITS, splitBatches } from '../domain/push-rules-batches';
import type { GitRunner } from './bare-repository';
import { CatFileProcess } from './cat-file';
import { BASE_ENV, GitError } from './git';
import { forEachGitRecord } from './git-lines';

/** A changed file with its new blob's size (0 when sizes were not asked for, for a deletion or a submodule). */
export interface WalkedFile extends ChangedPath {
  size: number;
}

export interface WalkedCommit extends CommitFacts {
  /** Only when `files` was asked for. */
  files: WalkedFile[];
}

export interface WalkOptions {
  /** Read each commit's changed paths (`git diff-tree`). */
  files: boolean;
  /** Read the new blobs' sizes (`git cat-file --batch-check`; only with `files`). */
  sizes: boolean;
  /** Commits read together (one diff-tree process, pipelined cat-file lookups). */
  batchSize?: number;
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Bytes a commit takes in a CheckPush call (roughly: its text and its paths). */
export const commitWeight = (c: WalkedCommit) =>
  256 + Buffer.byteLength(c.message) + c.authorName.length + c.authorEmail.length + c.committerName.length + c.committerEmail.length +
  c.files.reduce((n, f) => n + 64 + Buffer.byteLength(f.path) + Buffer.byteLength(f.oldPath), 0);

/**
 * The commits a push brings that the repository does not have yet, oldest first, read with git's own plumbing in the
 * push's quarantine environment (pre-receive: the objects are readable, no ref moved, so `--branches --tags` is what
 * the repository already had on its branches and tags): `git rev-list --reverse --topo-order <tips> --not --branches
 * --tags` (commits shared by several refs come once; a commit reachable only from some other ref, which no push check
 * saw, counts as new), streamed; per
 * batch one `git cat-file --batch` lookup per commit (message, author, committer, `gpgsig`), one
 * `git diff-tree --stdin -r -M --root -z --always` for the changed paths when `files`, and one long-lived
 * `git cat-file --batch-check` for the new blobs' sizes when `sizes`. Batches are yielded one at a time: rev-list is not
 * read further while the consumer works on one (stream back-pressure), so at most a batch is held in memory; stopping
 * the iteration (a denial) kills every process. Revisions are object ids git gave the hook, never user text.
 */
export async function* walkNewCommits(
  git: GitRunner, dir: string, env: Readonly<Record<string, string>>, tips: readonly string[], opts: WalkOptions,
): AsyncGenerator<WalkedCommit[]> {
  for (const tip of tips) if (!OID.test(tip)) throw new Error(`not an object id: ${tip.slice(0, 80)}`);
  if (!tips.length) return;
  const batchSize = opts.batchSize ?? PUSH_RULES_BATCH_COMMITS;
  const args = ['-C', dir, 'rev-list', '--reverse', '--topo-order', ...tips, '--not', '--branches', '--tags'];
  const revList = spawn(git.gitBin, args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...BASE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  revList.stderr.on('data', (b: Buffer) => {
    if (stderr.length < 16 * 1024) stderr += b.toString();
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    revList.kill('SIGKILL');
  }, git.timeoutMs);
  const exited = new Promise<number | null>((resolve) => revList.on('close', (code) => resolve(code)));
  revList.on('error', () => undefined);
  const commits = new CatFileProcess(git.gitBin, dir, 'batch', { env: { ...env }, timeoutMs: git.timeoutMs, maxObjectBytes: 32 * 1024 * 1024 });
  const blobs = opts.files && opts.sizes ? new CatFileProcess(git.gitBin, dir, 'batch-check', { env: { ...env }, timeoutMs: git.timeoutMs }) : undefined;
  const read = (ids: string[]) => readBatch(git, dir, env, ids, commits, blobs, opts);
  try {
    let ids: string[] = [];
    let rest = '';
    for await (const chunk of revList.stdout as AsyncIterable<Buffer>) {
      const lines = (rest + chunk.toString('latin1')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (!line) continue;
        ids.push(line);
        if (ids.length >= batchSize) {
          // The consumer works on these while rev-list waits (its stdout is not read meanwhile).
          for (const part of splitBatches(await read(ids), commitWeight)) yield part;
          ids = [];
        }
      }
    }
    if (rest) ids.push(rest);
    const code = await exited;
    if (timedOut) throw new GitError(['rev-list'], null, `timed out after ${git.timeoutMs} ms`);
    if (code !== 0) throw new GitError(['rev-list'], code, stderr);
    if (ids.length) for (const part of splitBatches(await read(ids), commitWeight)) yield part;
  } finally {
    clearTimeout(timer);
    if (revList.exitCode === null) revList.kill('SIGKILL');
    commits.close();
    blobs?.close();
  }
}

/** The facts of `ids` (in order): raw commits through the long-lived cat-file, changed paths through one diff-tree. */
async function readBatch(
  git: GitRunner, dir: string, env: Readonly<Record<string, string>>, ids: string[], commits: CatFileProcess, blobs: CatFileProcess | undefined, opts: WalkOptions,
): Promise<WalkedCommit[]> {
  for (const id of ids) if (!OID.test(id)) throw new Error(`rev-list: unexpected line ${id.slice(0, 80)}`);
  const objects = await Promise.all(ids.map((id) => commits.get(id)));
  const out: WalkedCommit[] = objects.map((o, i) => {
    if (!o || o.type !== 'commit' || !o.content) throw new Error(`commit ${ids[i]} not readable`);
    return { ...parseRawCommit(ids[i]!, o.content), files: [] };
  });
  if (!opts.files) return out;
  const byId = new Map(out.map((c) => [c.id, c]));
  const parser = new DiffTreeParser((commitId, change) => byId.get(commitId)?.files.push({ ...change, size: 0 }));
  await forEachGitRecord(git.gitBin, ['diff-tree', '--stdin', '-r', '-M', '--root', '-z', '--always'], {
    dir, env: { ...env }, input: `${ids.join('\n')}\n`, timeoutMs: git.timeoutMs,
  }, 0, (record) => parser.push(record));
  if (blobs) {
    const lookups: Promise<void>[] = [];
    for (const c of out) {
      for (const f of c.files) {
        if (f.status === 'deleted' || f.mode === '160000' || /^0+$/.test(f.blobId)) continue;
        lookups.push(blobs.get(f.blobId).then((o) => {
          f.size = o?.size ?? 0;
        }));
      }
    }
    await Promise.all(lookups);
  }
  return out;
}
