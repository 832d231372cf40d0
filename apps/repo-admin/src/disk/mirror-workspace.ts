import { GitError, runGit } from './git';
import type { GitRunner } from './bare-repository';
import { MIRROR_NAMESPACE, MIRROR_REFSPECS } from '../domain/mirror-rules';

export interface RefChange {
  ref: string;
  oldRev: string;
  newRev: string;
}

const ZERO = '0'.repeat(40);

/**
 * A pull-mirror update in a bare repository: the upstream's branches and tags are fetched into a temporary namespace
 * (`refs/glp-mirror/`), compared with the repository's own, and the chosen ref changes applied in one atomic
 * `update-ref --stdin` (every old value checked). Object ids come from git itself, never from user text.
 */
export class MirrorWorkspace {
  constructor(readonly git: GitRunner, readonly dir: string) {}

  private run(args: string[], extra: { input?: string; env?: Record<string, string> } = {}) {
    return runGit(this.git.gitBin, args, { dir: this.dir, timeoutMs: this.git.timeoutMs, signal: this.git.signal, maxOutputBytes: 64 * 1024 * 1024, ...extra }).then((b) => b.toString('utf8'));
  }

  /** Fetches the upstream's refs into the temporary namespace (`env`: pinned address and credentials, disk/remote.ts). */
  async fetchUpstream(url: string, env: Record<string, string>): Promise<void> {
    await this.run(['fetch', '--quiet', '--no-write-fetch-head', '--prune', '--no-tags', '--', url, ...MIRROR_REFSPECS], { env });
  }

  /** refname → object id, for every ref under `prefix`. */
  async refs(prefix: string): Promise<Map<string, string>> {
    const out = await this.run(['for-each-ref', '--format=%(objectname) %(refname)', prefix]);
    return new Map(out.split('\n').filter(Boolean).map((l) => {
      const i = l.indexOf(' ');
      return [l.slice(i + 1), l.slice(0, i)] as const;
    }));
  }

  /** Whether `ancestor` is an ancestor of (or equal to) `descendant`. */
  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    try {
      await this.run(['merge-base', '--is-ancestor', ancestor, descendant]);
      return true;
    } catch (err) {
      if (err instanceof GitError && err.code === 1) return false;
      throw err;
    }
  }

  /** Applies the changes atomically: all of them or none (an old value that moved meanwhile fails the lot). */
  async apply(changes: readonly RefChange[]): Promise<void> {
    if (changes.length === 0) return;
    const input = changes.map((c) => `update ${c.ref} ${c.newRev} ${c.oldRev || ZERO}\n`).join('');
    await this.run(['update-ref', '--stdin'], { input });
  }

  /** Drops the temporary namespace. */
  async clear(): Promise<void> {
    const temp = await this.refs(MIRROR_NAMESPACE);
    if (temp.size === 0) return;
    await this.run(['update-ref', '--stdin'], { input: [...temp.keys()].map((r) => `delete ${r}\n`).join('') });
  }
}
