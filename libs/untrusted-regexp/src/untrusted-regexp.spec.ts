import { compileUntrusted, re2Message, re2SyntaxError, untrustedMatch, untrustedRegexpError } from './untrusted-regexp';

describe('untrusted regexps (RE2 through re2js)', () => {
  it('matches unanchored, multiline on demand', () => {
    expect(untrustedMatch('b+', 'abbc')).toBe(true);
    expect(untrustedMatch('^b', 'a\nb')).toBe(false);
    expect(untrustedMatch('^b', 'a\nb', true)).toBe(true);
    expect(compileUntrusted('x')).toBe(compileUntrusted('x'));
  });

  it('runs a catastrophic backtracking pattern in linear time', () => {
    const evil = `${'a'.repeat(100_000)}!`;
    const started = process.hrtime.bigint();
    expect(untrustedMatch('^(a+)+$', evil)).toBe(false);
    expect(untrustedMatch('(x+x+)+y', 'x'.repeat(50_000))).toBe(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2_000);
  });

  it('refuses what RE2 does not accept (backreferences, lookarounds), with RE2 wording', () => {
    expect(untrustedRegexpError('(a)\\1')).toBe('not valid RE2 syntax: invalid escape sequence: \\1');
    expect(untrustedRegexpError('a(?=b)')).toBe('not valid RE2 syntax: invalid perl operator: (?=');
    expect(untrustedRegexpError('(')).toBe('not valid RE2 syntax: missing ): (');
    expect(untrustedRegexpError('^feature/.*$')).toBeUndefined();
    expect(re2SyntaxError('a**')).toBe('bad repetition operator: **');
    expect(re2Message('error parsing regexp: missing closing ]: `[a`')).toBe('missing ]: [a');
  });

  it('a pattern that does not compile throws, or answers what the caller chose', () => {
    expect(() => untrustedMatch('(', 'x')).toThrow();
    expect(untrustedMatch('(', 'x', false, false)).toBe(false);
  });
});
