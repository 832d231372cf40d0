import { changedFilesFrom, type ChangedFiles, type CommitRange } from '../domain/ref-updates';
import type { GitRunner } from './bare-repository';
import { runGit } from './git';

/** A commit as a push payload shows it. */
export interface PushedCommit extends ChangedFiles {
  id: string;
  message: string;
  authorName: string;
  authorEmail: string;
  /** Committer date (GitLab's `timestamp` is `committed_date`). */
  committedAt: Date;
}

/**
 * What a push changed in a bare repository, read with the git CLI after the refs moved (post-receive): branches, the
 * commits of a range with the files each changed, counts, and what a tag points at. Revisions are object ids git gave
 * the hook or full ref names, never user text.
 */
export class PushReader {
  constructor(readonly git: GitRunner, readonly dir: string) {}

  private run(args: string[]): Promise<string> {
    return runGit(this.git.gitBin, args, { dir: this.dir, timeoutMs: this.git.timeoutMs, maxOutputBytes: 64 * 1024 * 1024 }).then((b) => b.toString('utf8'));
  }

  /** Every branch name, sorted by name. */
  async branches(): Promise<string[]> {
    const out = await this.run(['for-each-ref', '--format=%(refname)', 'refs/heads/']);
    return out.split('\n').filter(Boolean).map((r) => r.slice('refs/heads/'.length)).sort();
  }

  private rangeArgs(range: CommitRange): string[] {
    return [range.tip, ...(range.exclude.length ? ['--not', ...range.exclude] : [])];
  }

  /** How many commits the range holds. */
  async countCommits(range: CommitRange): Promise<number> {
    return Number((await this.run(['rev-list', '--count', ...this.rangeArgs(range)])).trim()) || 0;
  }

  /** The newest `limit` commits of the range, oldest first (the order of a push payload), with their changed files. */
  async commits(range: CommitRange, limit: number): Promise<PushedCommit[]> {
    const out = await this.run(['log', `-n${limit}`, '-z', '--format=%H%x00%P%x00%an%x00%ae%x00%cI%x00%B', ...this.rangeArgs(range)]);
    const fields = out === '' ? [] : out.split('\0');
    const commits: PushedCommit[] = [];
    for (let i = 0; i + 5 < fields.length; i += 6) {
      const [id, parents, authorName, authorEmail, date, message] = fields.slice(i, i + 6) as [string, string, string, string, string, string];
      commits.push({ id, message, authorName, authorEmail, committedAt: new Date(date), ...(await this.changedFiles(id, parents.split(' ').filter(Boolean)[0])) });
    }
    return commits.reverse();
  }

  /**
   * The object a full ref points at, or undefined when there is no such ref. `ref` must be a valid ref name (no glob:
   * for-each-ref treats its argument as a pattern, so the answer is checked to be that very ref).
   */
  async refTarget(ref: string): Promise<string | undefined> {
    const out = await this.run(['for-each-ref', '--format=%(refname)%00%(objectname)', '--', ref]);
    for (const line of out.split('\n')) {
      const [name, id] = line.split('\0');
      if (name === ref && id) return id;
    }
    return undefined;
  }

  /** The full ref HEAD names (`refs/heads/main`), or undefined when HEAD is detached or unreadable. */
  async headRef(): Promise<string | undefined> {
    const out = await this.run(['symbolic-ref', '--quiet', 'HEAD']).catch(() => '');
    return out.trim() || undefined;
  }

  /** One commit (a tag's target), with its changed files. */
  async commit(id: string): Promise<PushedCommit | undefined> {
    return (await this.commits({ tip: id, exclude: [] }, 1))[0];
  }

  /** The files `id` changed against its first parent (everything, for a root commit). */
  async changedFiles(id: string, firstParent: string | undefined): Promise<ChangedFiles> {
    const args = firstParent
      ? ['diff-tree', '-r', '--no-renames', '--name-status', '-z', firstParent, id]
      : ['diff-tree', '-r', '--root', '--no-renames', '--no-commit-id', '--name-status', '-z', id];
    return changedFilesFrom(await this.run(args));
  }

  /** The commit an object (a commit, or an annotated tag) finally points at; undefined for a tree or a blob. */
  async peelToCommit(rev: string): Promise<string | undefined> {
    const out = await this.run(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]).catch(() => '');
    return out.trim() || undefined;
  }
}
