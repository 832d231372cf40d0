import { commitListLimit, isValidRefName, refCandidates } from './commit-listing';

describe('commit listing rules', () => {
  it('bounds the limit', () => {
    expect(commitListLimit(0)).toBe(20);
    expect(commitListLimit(-5)).toBe(20);
    expect(commitListLimit(3)).toBe(3);
    expect(commitListLimit(1000)).toBe(100);
  });

  it('accepts ref names git accepts and refuses globs and options', () => {
    for (const ok of ['main', 'feature/x', 'refs/heads/main', 'refs/tags/v1.0', 'a-b_c']) expect([ok, isValidRefName(ok)]).toEqual([ok, true]);
    for (const bad of ['', '-n1', '--all', 'a..b', 'ma*', 'x?', 'a[b]', 'a b', 'a:b', 'a~1', 'a^', 'a/', '/a', 'a//b', 'a.lock', '.a', 'a@{1}', '@', 'a\\b']) {
      expect([bad, isValidRefName(bad)]).toEqual([bad, false]);
    }
  });

  it('tries a branch, then a tag, for a short name', () => {
    expect(refCandidates('main')).toEqual(['refs/heads/main', 'refs/tags/main']);
    expect(refCandidates('refs/tags/v1')).toEqual(['refs/tags/v1']);
    expect(refCandidates('--all')).toEqual([]);
  });
});
