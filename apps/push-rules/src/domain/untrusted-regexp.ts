import { RE2JS } from 're2js';

/**
 * GitLab's `Gitlab::UntrustedRegexp` (lib/gitlab/untrusted_regexp.rb): user patterns are RE2 (linear time, no
 * backtracking), matched unanchored (`regexp === data`); `multiline: true` is RE2's `(?m)` (^ and $ at line breaks).
 * Here through re2js, compiled once per (pattern, multiline) and kept in a bounded cache.
 */

const MAX_CACHED = 500;
const cache = new Map<string, RE2JS>();

export function compileUntrusted(pattern: string, multiline = false): RE2JS {
  const key = `${multiline ? 'm' : 's'}:${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const compiled = RE2JS.compile(pattern, multiline ? RE2JS.MULTILINE : 0);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

/** `regexp === data`: an unanchored search. */
export function untrustedMatch(pattern: string, data: string, multiline = false): boolean {
  return compileUntrusted(pattern, multiline).matcher(data).find();
}

// re2js words its errors as Go's regexp/syntax does; RE2 (what GitLab's re2 gem reports) as `ErrorCodeText: arg`.
const GO_TO_RE2: Record<string, string> = {
  'missing closing )': 'missing )',
  'unexpected )': 'unexpected )',
  'missing closing ]': 'missing ]',
  'trailing backslash at end of expression': 'trailing \\',
  'invalid nested repetition operator': 'bad repetition operator',
  'invalid repeat count': 'invalid repetition size',
  'missing argument to repetition operator': 'no argument for repetition operator',
  'invalid or unsupported Perl syntax': 'invalid perl operator',
  'invalid named capture': 'invalid named capture group',
  'invalid escape sequence': 'invalid escape sequence',
  'invalid character class': 'invalid character class',
  'invalid character class range': 'invalid character class range',
  'invalid UTF-8': 'invalid UTF-8',
};

/** RE2's message for a re2js syntax error ("error parsing regexp: missing closing ): `(`" → "missing ): ("). */
export function re2Message(goMessage: string): string {
  const m = /^(?:error parsing regexp: )?([^:`]+?)(?:: `([\s\S]*)`)?$/.exec(goMessage);
  if (!m) return goMessage;
  const code = GO_TO_RE2[m[1]!] ?? m[1]!;
  return m[2] === undefined ? code : `${code}: ${m[2]}`;
}

/** The syntax error of a pattern as GitLab's UntrustedRegexpValidator reports it, or undefined when it compiles. */
export function re2SyntaxError(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return re2Message((err as Error).message);
  }
}
