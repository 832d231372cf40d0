/**
 * Ref updates as git's receive hooks see them (stdin of pre-receive/post-receive: `<old> <new> <ref>` per line), and the
 * rules GitLab applies to them after a push (`app/services/git/*_hooks_service.rb`, `lib/gitlab/data_builder/push.rb`).
 */

export interface RefUpdate {
  oldRev: string;
  newRev: string;
  ref: string;
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** An all-zero object id: the ref did not exist (old) or is deleted (new). */
export const isBlankRev = (rev: string) => /^0+$/.test(rev);
export const BLANK_SHA1 = '0'.repeat(40);

/** The lines of a receive hook's stdin; malformed lines (which git never writes) are an error. */
export function parseRefUpdates(text: string): RefUpdate[] {
  const updates: RefUpdate[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^(\S+) (\S+) (refs\/\S.*)$/.exec(line.replace(/\r$/, ''));
    if (!m || !OID.test(m[1]!) || !OID.test(m[2]!)) throw new Error(`malformed ref update: ${JSON.stringify(line.slice(0, 200))}`);
    updates.push({ oldRev: m[1]!, newRev: m[2]!, ref: m[3]! });
  }
  return updates;
}

export const BRANCH_PREFIX = 'refs/heads/';
export const TAG_PREFIX = 'refs/tags/';

/** The branch a ref names (`refs/heads/x` → `x`), else undefined. */
export const branchOf = (ref: string) => (ref.startsWith(BRANCH_PREFIX) && ref.length > BRANCH_PREFIX.length ? ref.slice(BRANCH_PREFIX.length) : undefined);
/** The tag a ref names (`refs/tags/v1` → `v1`), else undefined. */
export const tagOf = (ref: string) => (ref.startsWith(TAG_PREFIX) && ref.length > TAG_PREFIX.length ? ref.slice(TAG_PREFIX.length) : undefined);

/**
 * The project's default branch as GitLab reads it (Gitaly `GetDefaultBranch`): the branch HEAD points at when it exists;
 * else the only branch; else `main`, then `master`, when one exists; else the first branch by name. Undefined when there
 * is no branch.
 */
export function defaultBranchOf(head: string, branches: readonly string[]): string | undefined {
  if (branches.length === 0) return undefined;
  if (head && branches.includes(head)) return head;
  if (branches.length === 1) return branches[0];
  if (branches.includes('main')) return 'main';
  if (branches.includes('master')) return 'master';
  return [...branches].sort()[0];
}

/** The commits a push payload lists for a branch update: `tip` and its ancestors, minus those reachable from `exclude`. */
export interface CommitRange {
  tip: string;
  exclude: string[];
}

/**
 * Which commits a branch push reports (GitLab `Git::BranchHooksService#threshold_commits`): the whole history when the
 * push creates the default branch; the commits not on the default branch when it creates another branch; the commits
 * between old and new when it moves a branch; none when it deletes one.
 */
export function branchCommitRange(update: RefUpdate, defaultBranch: string | undefined): CommitRange | undefined {
  if (isBlankRev(update.newRev)) return undefined;
  if (!isBlankRev(update.oldRev)) return { tip: update.newRev, exclude: [update.oldRev] };
  const branch = branchOf(update.ref);
  if (!defaultBranch || branch === defaultBranch) return { tip: update.newRev, exclude: [] };
  return { tip: update.newRev, exclude: [`${BRANCH_PREFIX}${defaultBranch}`] };
}

/**
 * `refs_in_push` of each update's Push/TagPush: how many refs of the push GitLab counts together when it decides whether
 * to run push hooks (app/services/git/process_ref_changes_service.rb: branch changes and tag changes, each grouped by
 * action — created, removed, pushed — and `execute_project_hooks?(changes)` is `changes.size <=
 * push_event_hooks_limit` for each group). So the value is the size of the update's (ref type, action) group; 0 for a
 * ref that is neither a branch nor a tag (no event).
 */
export function refsInPushCounts(updates: readonly RefUpdate[]): number[] {
  const groupOf = (u: RefUpdate): string | undefined => {
    const type = branchOf(u.ref) !== undefined ? 'branch' : tagOf(u.ref) !== undefined ? 'tag' : undefined;
    if (!type) return undefined;
    const action = isBlankRev(u.oldRev) ? 'created' : isBlankRev(u.newRev) ? 'removed' : 'pushed';
    return `${type}:${action}`;
  };
  const sizes = new Map<string, number>();
  const groups = updates.map(groupOf);
  for (const g of groups) if (g) sizes.set(g, (sizes.get(g) ?? 0) + 1);
  return groups.map((g) => (g ? sizes.get(g)! : 0));
}

/** At most this many commits (the newest) go into a push payload (`Gitlab::DataBuilder::Push.build`: `commits.last(20)`). */
export const PUSH_COMMITS_LIMIT = 20;

/**
 * GitLab's `Commit#title`: the message up to its first line break (`No commit message` when blank), and when that is 100
 * characters or longer, cut to fit 80 at the last space (Rails `truncate(81, separator: ' ', omission: '…')`).
 */
export function commitTitle(message: string): string {
  if (message.trim() === '') return 'No commit message';
  const full = message.split(/[\r\n]/, 1)[0]!;
  const chars = [...full];
  if (chars.length < 100) return full;
  const room = 80;
  let stop = room;
  for (let i = Math.min(room, chars.length - 1); i >= 0; i--) {
    if (chars[i] === ' ') {
      stop = i;
      break;
    }
  }
  return `${chars.slice(0, stop).join('')}…`;
}

/** Files a commit changed against its first parent, as a push payload lists them (`Commit#repo_changes`). */
export interface ChangedFiles {
  added: string[];
  modified: string[];
  removed: string[];
}

/**
 * `git diff-tree --name-status -z` output (status NUL path NUL …, renames off) → added/modified/removed, in the order git
 * lists them. A type change counts as modified, as GitLab's raw deltas do.
 */
export function changedFilesFrom(nameStatusZ: string): ChangedFiles {
  const out: ChangedFiles = { added: [], modified: [], removed: [] };
  const parts = nameStatusZ.split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i]!.trim();
    const file = parts[i + 1]!;
    if (!status) continue;
    if (status.startsWith('A')) out.added.push(file);
    else if (status.startsWith('D')) out.removed.push(file);
    else out.modified.push(file);
  }
  return out;
}
