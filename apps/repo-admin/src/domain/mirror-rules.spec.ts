import { decideBranch, mirroredBranch, nextUpdateDelayMs, upstreamRef } from './mirror-rules';

const opts = { onlyProtectedBranches: false, overwriteDiverged: false, branchRegex: undefined };

describe('pull mirror rules', () => {
  it('takes every branch, only the protected (default) one, or those matching the regex', () => {
    expect(mirroredBranch('feature', 'main', opts)).toBe(true);
    expect(mirroredBranch('feature', 'main', { ...opts, onlyProtectedBranches: true })).toBe(false);
    expect(mirroredBranch('main', 'main', { ...opts, onlyProtectedBranches: true })).toBe(true);
    expect(mirroredBranch('release/1', 'main', { ...opts, branchRegex: '^release/' })).toBe(true);
    expect(mirroredBranch('feature', 'main', { ...opts, branchRegex: '^release/' })).toBe(false);
    expect(mirroredBranch('x', 'main', { ...opts, branchRegex: '(' })).toBe(false);
  });

  it('matches mirror_branch_regex in linear time: a catastrophic pattern on a hostile branch name answers at once', () => {
    const started = process.hrtime.bigint();
    expect(mirroredBranch(`${'a'.repeat(28)}!`, 'main', { ...opts, branchRegex: '^(a+)+$' })).toBe(false);
    expect(mirroredBranch(`${'a'.repeat(40)}!`, 'main', { ...opts, branchRegex: '^(a|aa)+$' })).toBe(false);
    expect(mirroredBranch('a'.repeat(40), 'main', { ...opts, branchRegex: '^(a+)+$' })).toBe(true);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
  });

  it('creates, fast-forwards, leaves equal branches, and overwrites diverged ones only when asked', () => {
    expect(decideBranch(undefined, 'b', false, false)).toBe('create');
    expect(decideBranch('a', 'a', true, false)).toBe('unchanged');
    expect(decideBranch('a', 'b', true, false)).toBe('fast-forward');
    expect(decideBranch('a', 'b', false, false)).toBe('diverged');
    expect(decideBranch('a', 'b', false, true)).toBe('overwrite');
  });

  it('maps temporary refs back and backs off after failures', () => {
    expect(upstreamRef('refs/glp-mirror/heads/main')).toBe('refs/heads/main');
    expect(upstreamRef('refs/heads/main')).toBeUndefined();
    expect(nextUpdateDelayMs(1000, false, 3)).toBe(1000);
    expect(nextUpdateDelayMs(1000, true, 2)).toBe(4000);
  });
});
