import { RE2JS } from 're2js';

/**
 * GitLab's `Gitlab::UntrustedRegexp` (lib/gitlab/untrusted_regexp.rb) and `UntrustedRegexpValidator`: every pattern a
 * user supplies (push rules, hook branch filters, mirror branch regexes, container policy regexes) is RE2 — linear time,
 * no backtracking, so no pattern/input pair can hold a process — matched unanchored (`regexp === data`);
 * `multiline: true` is RE2's `(?m)` (^ and $ at line breaks). Here through re2js, compiled once per (pattern, multiline)
 * and kept in a bounded cache (a pattern that does not compile is remembered too, as such).
 */

const MAX_CACHED = 1000;
const cache = new Map<string, RE2JS | Error>();

function compileCached(pattern: string, multiline: boolean): RE2JS | Error {
  const key = `${multiline ? 'm' : 's'}:${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let compiled: RE2JS | Error;
  try {
    compiled = RE2JS.compile(pattern, multiline ? RE2JS.MULTILINE : 0);
  } catch (err) {
    compiled = err instanceof Error ? err : new Error(String(err));
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

/** The compiled pattern; throws the syntax error of one that does not compile. */
export function compileUntrusted(pattern: string, multiline = false): RE2JS {
  const compiled = compileCached(pattern, multiline);
  if (compiled instanceof Error) throw compiled;
  return compiled;
}

/**
 * `regexp === data`: an unanchored search. `invalid` says what a pattern that does not compile answers (one saved
 * before it was validated, say): by default it throws, as GitLab's `UntrustedRegexp.new` raises.
 */
export function untrustedMatch(pattern: string, data: string, multiline = false, invalid?: boolean): boolean {
  const compiled = compileCached(pattern, multiline);
  if (compiled instanceof Error) {
    if (invalid === undefined) throw compiled;
    return invalid;
  }
  return compiled.matcher(data).find();
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

/** The RE2 syntax error of a pattern (RE2's wording), or undefined when it compiles. */
export function re2SyntaxError(pattern: string): string | undefined {
  const compiled = compileCached(pattern, false);
  return compiled instanceof Error ? re2Message(compiled.message) : undefined;
}

/** `UntrustedRegexpValidator`'s error on an attribute: "not valid RE2 syntax: <RE2's message>", or undefined. */
export function untrustedRegexpError(pattern: string): string | undefined {
  const syntax = re2SyntaxError(pattern);
  return syntax === undefined ? undefined : `not valid RE2 syntax: ${syntax}`;
}
