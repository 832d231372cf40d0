/**
 * What the push-rules check reads of a pushed commit, parsed from git's own plumbing output (no I/O here): the raw
 * commit object (`git cat-file --batch`) and the changed paths (`git diff-tree --stdin -r -M --root -z --always`).
 */

/** A commit as push rules look at it (GitLab `ee/lib/ee/gitlab/checks/change_access.rb` `check_commit`). */
export interface CommitFacts {
  id: string;
  message: string;
  authorName: string;
  authorEmail: string;
  committerName: string;
  committerEmail: string;
  /** The commit object carries a signature header (`gpgsig`, `gpgsig-sha256`). */
  signed: boolean;
}

/** `Name <email> <seconds> <tz>` → name and email, as git splits an ident line (the first `<`, the `>` after it). */
export function parseIdent(value: string): { name: string; email: string } {
  const lt = value.indexOf('<');
  if (lt < 0) return { name: value.trim(), email: '' };
  const gt = value.indexOf('>', lt + 1);
  return { name: value.slice(0, lt).trim(), email: value.slice(lt + 1, gt < 0 ? undefined : gt).trim() };
}

/**
 * A raw commit object: headers up to the first empty line (continuation lines start with a space, as a `gpgsig`
 * block's do), then the message. Only the first `author` and `committer` headers count.
 */
export function parseRawCommit(id: string, raw: Buffer): CommitFacts {
  const split = raw.indexOf('\n\n');
  const headerText = (split < 0 ? raw : raw.subarray(0, split)).toString('utf8');
  const message = split < 0 ? '' : raw.subarray(split + 2).toString('utf8');
  let author: { name: string; email: string } | undefined;
  let committer: { name: string; email: string } | undefined;
  let signed = false;
  for (const line of headerText.split('\n')) {
    if (line.startsWith(' ')) continue; // continuation of a multi-line header
    const sp = line.indexOf(' ');
    const key = sp < 0 ? line : line.slice(0, sp);
    const value = sp < 0 ? '' : line.slice(sp + 1);
    if (key === 'author' && !author) author = parseIdent(value);
    else if (key === 'committer' && !committer) committer = parseIdent(value);
    else if (key === 'gpgsig' || key === 'gpgsig-sha256') signed = true;
  }
  return {
    id, message, authorName: author?.name ?? '', authorEmail: author?.email ?? '', committerName: committer?.name ?? '', committerEmail: committer?.email ?? '', signed,
  };
}

/** A path a commit changed against its first parent (everything, for a root commit). */
export interface ChangedPath {
  path: string;
  /** For a rename: the previous path; else empty. */
  oldPath: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed';
  /** The new blob's id (all zeros for a deletion). */
  blobId: string;
  /** The new entry's mode (`160000` for a submodule: no blob to measure). */
  mode: string;
}

const STATUS: Record<string, ChangedPath['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type_changed' };
const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Incremental parser of `git diff-tree --stdin -r -M --root -z --always` (NUL-separated records): a commit id record
 * opens a commit (`--always`: even one without changes); `:<src mode> <dst mode> <src> <dst> <status>` is followed by
 * one path, or two for a rename or copy. A path that looks like a commit id is never taken for one (the parser knows
 * how many paths follow an entry). Unknown statuses (`U`, `X`) are taken as modified.
 */
export class DiffTreeParser {
  private commit: string | undefined;
  private entry: { status: ChangedPath['status']; blobId: string; mode: string; paths: string[]; want: number } | undefined;

  constructor(private readonly onPath: (commitId: string, change: ChangedPath) => void, private readonly onCommit: (commitId: string) => void = () => undefined) {}

  push(record: Buffer): void {
    const text = record.toString('utf8');
    if (this.entry) {
      this.entry.paths.push(text);
      if (this.entry.paths.length === this.entry.want) {
        const { status, blobId, mode, paths } = this.entry;
        this.entry = undefined;
        const two = paths.length === 2;
        this.onPath(this.commit!, { path: two ? paths[1]! : paths[0]!, oldPath: two ? paths[0]! : '', status, blobId, mode });
      }
      return;
    }
    if (text.startsWith(':')) {
      if (!this.commit) throw new Error('diff-tree: an entry before any commit');
      const [, dstMode = '', , dst = '', statusField = ''] = text.slice(1).split(' ');
      const letter = statusField.charAt(0);
      const status = STATUS[letter] ?? 'modified';
      this.entry = { status, blobId: dst, mode: dstMode, paths: [], want: letter === 'R' || letter === 'C' ? 2 : 1 };
      return;
    }
    if (text === '') return;
    if (!OID.test(text)) throw new Error(`diff-tree: unexpected record ${JSON.stringify(text.slice(0, 80))}`);
    this.commit = text;
    this.onCommit(text);
  }
}
