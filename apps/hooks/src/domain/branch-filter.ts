import { untrustedMatch, untrustedRegexpError } from '@glp/untrusted-regexp';

/**
 * The push-events branch filter of a project hook (GitLab `app/services/active_hook_filter.rb`,
 * `app/validators/web_hooks/wildcard_branch_filter_validator.rb`, `app/validators/untrusted_regexp_validator.rb`,
 * `lib/gitlab/git_ref_validator.rb`, `app/models/ref_matcher.rb`). Pure rules, no I/O.
 */

export const BRANCH_FILTER_STRATEGIES = ['wildcard', 'regex', 'all_branches'] as const;
export type BranchFilterStrategy = (typeof BRANCH_FILTER_STRATEGIES)[number];

export function isBranchFilterStrategy(s: string): s is BranchFilterStrategy {
  return (BRANCH_FILTER_STRATEGIES as readonly string[]).includes(s);
}

/** ActiveSupport `String#squish`: surrounding whitespace removed, inner runs of whitespace collapsed to one space. */
export function squish(value: string): string {
  return value.trim().replace(/\s+/g, ' ');
}

// Gitlab::GitRefValidator::FORBIDDEN_BYTES_REGEX: control characters, DEL, space, ~ ^ : ? * [ \
const FORBIDDEN = /[\x00-\x1f\x7f ~^:?*[\\]/;

/**
 * `Gitlab::GitRefValidator.validate` (custom_valid_ref_name?): an unqualified branch name that git accepts as
 * `refs/heads/<name>`.
 */
export function isValidBranchName(name: string): boolean {
  if (name === '' || name === 'HEAD') return false;
  if (name.startsWith('refs/heads/') || name.startsWith('refs/remotes/')) return false;
  if (name.startsWith('-') || name.endsWith('/') || name.endsWith('.')) return false;
  if (FORBIDDEN.test(name)) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  return !name.split('/').some((c) => c.startsWith('.') || c.endsWith('.lock'));
}

/**
 * The model's errors on `push_events_branch_filter` for a strategy (GitLab messages), after normalising the value
 * the way the model does before validation. Returns the value to store (all_branches clears it: `set_branch_filter_nil`).
 */
export function normaliseBranchFilter(strategy: BranchFilterStrategy, value: string | null): { value: string | null; errors: string[] } {
  if (strategy === 'all_branches') return { value: null, errors: [] };
  if (value === null) return { value: null, errors: [] };
  if (strategy === 'regex') {
    // UntrustedRegexpValidator: "not valid RE2 syntax: <RE2's message>"
    const error = untrustedRegexpError(value);
    return { value, errors: error ? [error] : [] };
  }
  // WildcardBranchFilterValidator squishes the value in place (what is saved), ignores blanks.
  const squished = squish(value);
  if (squished === '') return { value: squished, errors: [] };
  const errors: string[] = [];
  if (!isValidBranchName(squished.replace(/\*/g, 'x'))) errors.push('is not a valid branch name');
  if (squished.length > 4000) errors.push('is longer than the allowed length of 4000 characters.');
  return { value: squished, errors };
}

/** `Gitlab::Git.branch_name`: the branch of a full ref (`refs/heads/x` → `x`), undefined for anything else. */
export function branchName(ref: string): string | undefined {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** RefMatcher: the exact name, or a glob where `*` matches any run of characters (anchored, the rest literal). */
export function wildcardMatches(filter: string, branch: string): boolean {
  if (filter === branch) return true;
  if (!filter.includes('*')) return false;
  // RE2 (`(?s)`: `*` spans line breaks too), compiled once per filter by the shared cache.
  return untrustedMatch(`(?s)^${filter.split('*').map(escapeRegExp).join('.*?')}$`, branch, false, false);
}

/**
 * ActiveHookFilter#matches? for a hook: only branch pushes (`push_hooks`) are filtered; a blank filter matches every
 * branch; regex is an unanchored RE2 search (a pattern that does not compile matches nothing).
 */
export function hookWantsRef(hook: { strategy: string; filter: string | null }, trigger: string, ref: string): boolean {
  if (trigger !== 'push_events') return true;
  if (hook.filter === null || hook.filter.trim() === '') return true;
  const branch = branchName(ref);
  if (branch === undefined) return false;
  switch (hook.strategy) {
    case 'all_branches':
      return true;
    case 'regex':
      return untrustedMatch(hook.filter, branch, false, false);
    case 'wildcard':
      return wildcardMatches(hook.filter, branch);
    default:
      return false;
  }
}
