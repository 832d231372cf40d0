import { hookWantsRef, isValidBranchName, normaliseBranchFilter, wildcardMatches } from './branch-filter';

const push = (strategy: string, filter: string | null, ref: string) => hookWantsRef({ strategy, filter }, 'push_events', ref);

describe('branch filter (ActiveHookFilter, RefMatcher, WildcardBranchFilterValidator)', () => {
  it('wildcard: exact names and anchored globs, other characters literal', () => {
    expect(push('wildcard', 'main', 'refs/heads/main')).toBe(true);
    expect(push('wildcard', 'main', 'refs/heads/main2')).toBe(false);
    expect(push('wildcard', 'feature/*', 'refs/heads/feature/login')).toBe(true);
    expect(push('wildcard', 'feature/*', 'refs/heads/feature/a/b')).toBe(true);
    expect(push('wildcard', 'feature/*', 'refs/heads/hotfix/feature/x')).toBe(false);
    expect(push('wildcard', 'release-1.*', 'refs/heads/release-1x0')).toBe(false); // "." is literal
    expect(push('wildcard', 'release-1.*', 'refs/heads/release-1.0')).toBe(true);
    expect(wildcardMatches('*-(x)', 'a-(x)')).toBe(true);
    expect(wildcardMatches('a+b', 'aab')).toBe(false);
  });

  it('regex: unanchored RE2 search, ^ and $ honoured, a bad pattern matches nothing', () => {
    expect(push('regex', 'feat', 'refs/heads/my-feature')).toBe(true);
    expect(push('regex', '^feat', 'refs/heads/my-feature')).toBe(false);
    expect(push('regex', '^(main|release/.+)$', 'refs/heads/release/1.0')).toBe(true);
    expect(push('regex', '(', 'refs/heads/main')).toBe(false);
  });

  it('regex: a catastrophic pattern on a long branch name finishes fast (RE2, linear time)', () => {
    const branch = `${'a'.repeat(100_000)}!`;
    const started = Date.now();
    expect(push('regex', '(a+)+$', `refs/heads/${branch}`)).toBe(false);
    expect(push('regex', '^(a|aa)+$', `refs/heads/${branch}`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('all_branches and a blank filter match every branch; tags and other events are never filtered', () => {
    expect(push('all_branches', 'ignored', 'refs/heads/anything')).toBe(true);
    expect(push('wildcard', null, 'refs/heads/x')).toBe(true);
    expect(push('wildcard', '   ', 'refs/heads/x')).toBe(true);
    expect(push('regex', '', 'refs/heads/x')).toBe(true);
    expect(hookWantsRef({ strategy: 'wildcard', filter: 'main' }, 'tag_push_events', 'refs/tags/v1')).toBe(true);
    expect(hookWantsRef({ strategy: 'regex', filter: '^main$' }, 'issues_events', '')).toBe(true);
    expect(push('wildcard', 'main', 'refs/tags/main')).toBe(false); // not a branch
  });

  it('validates like GitLab: git ref names after replacing *, 4000 characters, RE2 syntax; all_branches clears', () => {
    expect(normaliseBranchFilter('wildcard', '  feature/*  ')).toEqual({ value: 'feature/*', errors: [] });
    expect(normaliseBranchFilter('wildcard', 'bad..name').errors).toEqual(['is not a valid branch name']);
    expect(normaliseBranchFilter('wildcard', 'has space').errors).toEqual(['is not a valid branch name']);
    expect(normaliseBranchFilter('wildcard', '').errors).toEqual([]);
    expect(normaliseBranchFilter('wildcard', 'a'.repeat(4001)).errors).toEqual(['is longer than the allowed length of 4000 characters.']);
    expect(normaliseBranchFilter('regex', '(a').errors[0]).toMatch(/^not valid RE2 syntax: /);
    expect(normaliseBranchFilter('regex', 'a(?=b)').errors).toHaveLength(1); // lookahead is not RE2
    expect(normaliseBranchFilter('regex', '^release/\\d+$').errors).toEqual([]);
    expect(normaliseBranchFilter('all_branches', 'x')).toEqual({ value: null, errors: [] });
    expect(isValidBranchName('HEAD')).toBe(false);
    expect(isValidBranchName('-x')).toBe(false);
    expect(isValidBranchName('a/.b')).toBe(false);
    expect(isValidBranchName('a.lock')).toBe(false);
    expect(isValidBranchName('a@{b')).toBe(false);
    expect(isValidBranchName('feature/login')).toBe(true);
  });
});
