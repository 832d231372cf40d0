import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { initBareRepository } from './bare-init';
import { runGit } from './git';

export interface GitRunner {
  gitBin: string;
  timeoutMs: number;
  /** Stops every command run with this runner (a repository job's time limit). */
  signal?: AbortSignal;
}

export interface Signature {
  name: string;
  email: string;
}

const ZERO = '0000000000000000000000000000000000000000';

/** A bare repository on disk, by its absolute path. Every operation is idempotent: a retried job may run it again. */
export class BareRepository {
  constructor(readonly git: GitRunner, readonly dir: string) {}

  private run(args: string[], extra: { input?: string; env?: Record<string, string> } = {}) {
    return runGit(this.git.gitBin, args, { dir: this.dir, timeoutMs: this.git.timeoutMs, signal: this.git.signal, ...extra }).then((b) => b.toString().trim());
  }

  exists(): boolean {
    return existsSync(path.join(this.dir, 'HEAD')) && existsSync(path.join(this.dir, 'objects'));
  }

  /** Whether it is on disk, waiting up to `waitMs` for one being created (polled every 100 ms). */
  async existsWithin(waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (this.exists()) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, Math.min(100, Math.max(1, deadline - Date.now()))));
    }
  }

  /** An empty bare repository with HEAD on `branch` (kept when the repository already exists: answers false then). */
  async init(branch: string): Promise<boolean> {
    if (this.exists()) return false;
    return initBareRepository(this.dir, branch);
  }

  /** Whether `refs/heads/<branch>` exists. */
  async hasBranch(branch: string): Promise<boolean> {
    return (await this.run(['for-each-ref', '--count=1', '--format=%(refname)', `refs/heads/${branch}`])) !== '';
  }

  /** No branch at all. */
  async isEmpty(): Promise<boolean> {
    return (await this.run(['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/'])) === '';
  }

  /** The branch HEAD points at. */
  async headBranch(): Promise<string> {
    return (await this.run(['symbolic-ref', '--short', 'HEAD']).catch(() => '')) || '';
  }

  async setHead(branch: string): Promise<void> {
    await this.run(['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
  }

  /**
   * One commit with a single file on a branch that does not exist yet (the README of `initialize_with_readme`), made
   * without a work tree: blob, tree, commit, then the ref created only if still absent.
   */
  async commitFile(branch: string, file: string, content: string, message: string, author: Signature): Promise<void> {
    if (await this.hasBranch(branch)) return;
    const blob = await this.run(['hash-object', '-w', '--stdin'], { input: content });
    const tree = await this.run(['mktree'], { input: `100644 blob ${blob}\t${file}\n` });
    const who = { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: author.name, GIT_COMMITTER_EMAIL: author.email };
    const commit = await this.run(['commit-tree', tree, '-m', message], { env: who });
    await this.run(['update-ref', `refs/heads/${branch}`, commit, ZERO]);
  }

  /**
   * Copies branches (all, or the named ones) and tags from another repository on the same storage (a fork), and
   * points HEAD where the source's HEAD points when that branch came along.
   */
  async copyFrom(source: BareRepository, branches: string[]): Promise<void> {
    const specs = branches.length ? branches.map((b) => `+refs/heads/${b}:refs/heads/${b}`) : ['+refs/heads/*:refs/heads/*'];
    await this.run(['fetch', '--quiet', '--no-write-fetch-head', source.dir, ...specs, '+refs/tags/*:refs/tags/*']);
    const head = await source.headBranch();
    if (head && (await this.hasBranch(head))) await this.setHead(head);
    else if (branches[0] && (await this.hasBranch(branches[0]))) await this.setHead(branches[0]);
  }

  /**
   * Fetches a remote's branches and tags (an import from a URL, a mirror update); `env` carries the pinned address and
   * credentials (see disk/remote.ts). HEAD follows the remote's default branch when it came along.
   */
  async fetchRemote(url: string, env: Record<string, string>, refspecs = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']): Promise<void> {
    await this.run(['fetch', '--quiet', '--no-write-fetch-head', '--prune', '--', url, ...refspecs], { env });
    const head = (await this.run(['ls-remote', '--symref', '--', url, 'HEAD'], { env }).catch(() => '')).match(/^ref: refs\/heads\/(\S+)\s+HEAD/m)?.[1];
    if (head && (await this.hasBranch(head))) await this.setHead(head);
  }

  /** Removes it: renamed aside first (atomic), then deleted. A missing repository is already removed. */
  async remove(): Promise<void> {
    if (!existsSync(this.dir)) return;
    const aside = `${this.dir.replace(/\.git$/, '')}+${Date.now()}+deleted.git`;
    await rename(this.dir, aside);
    await rm(aside, { recursive: true, force: true });
  }
}
