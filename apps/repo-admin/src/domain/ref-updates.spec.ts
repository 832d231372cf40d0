import { BLANK_SHA1, branchCommitRange, branchOf, changedFilesFrom, commitTitle, defaultBranchOf, isBlankRev, parseRefUpdates, refsInPushCounts, tagOf } from './ref-updates';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('ref updates', () => {
  it('parses receive hook input', () => {
    expect(parseRefUpdates(`${BLANK_SHA1} ${A} refs/heads/main\n${A} ${B} refs/tags/v1.0\n\n`)).toEqual([
      { oldRev: BLANK_SHA1, newRev: A, ref: 'refs/heads/main' },
      { oldRev: A, newRev: B, ref: 'refs/tags/v1.0' },
    ]);
    // SHA-256 object ids too.
    expect(parseRefUpdates(`${'c'.repeat(64)} ${'0'.repeat(64)} refs/heads/x`)).toHaveLength(1);
    expect(parseRefUpdates('')).toEqual([]);
  });

  it('refuses what git never writes', () => {
    expect(() => parseRefUpdates(`${A} ${B}`)).toThrow(/malformed/);
    expect(() => parseRefUpdates(`xyz ${B} refs/heads/main`)).toThrow(/malformed/);
    expect(() => parseRefUpdates(`${A} ${B} main`)).toThrow(/malformed/);
  });

  it('names branches and tags', () => {
    expect(branchOf('refs/heads/feature/x')).toBe('feature/x');
    expect(branchOf('refs/tags/v1')).toBeUndefined();
    expect(branchOf('refs/heads/')).toBeUndefined();
    expect(tagOf('refs/tags/v1')).toBe('v1');
    expect(tagOf('refs/merge-requests/1/head')).toBeUndefined();
    expect(isBlankRev(BLANK_SHA1)).toBe(true);
    expect(isBlankRev(A)).toBe(false);
  });

  it('reads the default branch as Gitaly does', () => {
    expect(defaultBranchOf('main', [])).toBeUndefined();
    expect(defaultBranchOf('dev', ['dev', 'main'])).toBe('dev');
    expect(defaultBranchOf('main', ['feature'])).toBe('feature');
    expect(defaultBranchOf('trunk', ['a', 'main', 'master'])).toBe('main');
    expect(defaultBranchOf('trunk', ['a', 'master'])).toBe('master');
    expect(defaultBranchOf('trunk', ['zeta', 'alpha'])).toBe('alpha');
  });

  it('picks the commits a branch push reports', () => {
    // Creating the default branch: its whole history.
    expect(branchCommitRange({ oldRev: BLANK_SHA1, newRev: A, ref: 'refs/heads/main' }, 'main')).toEqual({ tip: A, exclude: [] });
    // Creating another branch: what the default branch does not have.
    expect(branchCommitRange({ oldRev: BLANK_SHA1, newRev: A, ref: 'refs/heads/topic' }, 'main')).toEqual({ tip: A, exclude: ['refs/heads/main'] });
    // Moving a branch (force pushes too): new, not old.
    expect(branchCommitRange({ oldRev: B, newRev: A, ref: 'refs/heads/topic' }, 'main')).toEqual({ tip: A, exclude: [B] });
    // Deleting: nothing.
    expect(branchCommitRange({ oldRev: A, newRev: BLANK_SHA1, ref: 'refs/heads/topic' }, 'main')).toBeUndefined();
    // No default branch at all: everything.
    expect(branchCommitRange({ oldRev: BLANK_SHA1, newRev: A, ref: 'refs/heads/topic' }, undefined)).toEqual({ tip: A, exclude: [] });
  });

  it('titles commits as GitLab’s Commit#title', () => {
    expect(commitTitle('Fix it\n\nBecause.\n')).toBe('Fix it');
    expect(commitTitle('One line')).toBe('One line');
    expect(commitTitle('  \n')).toBe('No commit message');
    const long = `${'word '.repeat(30)}end`; // 154 characters
    const title = commitTitle(long);
    expect(title.endsWith('…')).toBe(true);
    expect([...title].length).toBeLessThanOrEqual(81);
    expect(title).toBe(`${'word '.repeat(16)}`.trimEnd() + '…');
    const x99 = 'x'.repeat(99);
    expect(commitTitle(x99)).toBe(x99);
    expect(commitTitle('y'.repeat(120))).toBe(`${'y'.repeat(80)}…`);
  });

  it('sorts diff-tree name-status output into added, modified and removed', () => {
    expect(changedFilesFrom('A\0new.txt\0M\0README.md\0D\0old.txt\0T\0link\0')).toEqual({
      added: ['new.txt'], modified: ['README.md', 'link'], removed: ['old.txt'],
    });
    expect(changedFilesFrom('')).toEqual({ added: [], modified: [], removed: [] });
  });

  it('counts refs_in_push as GitLab groups a push: by ref type and action', () => {
    const u = (oldRev: string, newRev: string, ref: string) => ({ oldRev, newRev, ref });
    expect(refsInPushCounts([
      u(A, B, 'refs/heads/a'), u(A, B, 'refs/heads/b'), u(BLANK_SHA1, A, 'refs/heads/c'), u(A, BLANK_SHA1, 'refs/heads/d'),
      u(BLANK_SHA1, A, 'refs/tags/v1'), u(BLANK_SHA1, B, 'refs/tags/v2'), u(A, B, 'refs/heads/e'), u(A, B, 'refs/notes/commits'),
    ])).toEqual([3, 3, 1, 1, 2, 2, 3, 0]);
    expect(refsInPushCounts([])).toEqual([]);
  });
});
