import { BRANCH_PREFIX, PUSH_COMMITS_LIMIT, TAG_PREFIX } from './ref-updates';

/** ListCommits answers at most this many commits. */
export const LIST_COMMITS_MAX = 100;

/** The number of commits to list: 0 (unset) → the push payload's 20; otherwise 1..100. */
export function commitListLimit(requested: number): number {
  if (!requested || requested < 1) return PUSH_COMMITS_LIMIT;
  return Math.min(Math.floor(requested), LIST_COMMITS_MAX);
}

/**
 * Whether a ref name is safe to hand to git as a for-each-ref pattern and is a valid ref name (`git check-ref-format`
 * rules: no control characters, space, `~ ^ : ? * [ \`, no `..`, no `@{`, no leading `-` or `/`, no trailing `/`, `.`
 * or `.lock`, no empty component): no glob, no option.
 */
export function isValidRefName(ref: string): boolean {
  if (ref === '' || ref.length > 1024) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return false;
  if (ref.includes('..') || ref.includes('@{') || ref === '@') return false;
  if (ref.startsWith('-') || ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock')) return false;
  return ref.split('/').every((c) => c !== '' && !c.startsWith('.'));
}

/**
 * The full refs a requested ref may name, in the order they are tried: a full ref (`refs/...`) as it is; a short name
 * as a branch, then a tag (GitLab's `Repository#commit(ref)` prefers branches). Empty for an invalid name.
 */
export function refCandidates(ref: string): string[] {
  if (!isValidRefName(ref)) return [];
  if (ref.startsWith('refs/')) return [ref];
  return [`${BRANCH_PREFIX}${ref}`, `${TAG_PREFIX}${ref}`];
}
