import { re2SyntaxError } from '@glp/untrusted-regexp';

/**
 * A project's push rule and what a create or an edit may change (GitLab EE `ee/lib/api/project_push_rule.rb`,
 * `ee/app/models/concerns/push_ruleable.rb`). Pure: the store keeps, the use cases decide, this validates.
 */

export const REGEX_FIELDS = [
  'commit_message_regex', 'commit_message_negative_regex', 'branch_name_regex', 'author_email_regex', 'file_name_regex',
] as const;
export const FLAG_FIELDS = [
  'deny_delete_tag', 'member_check', 'prevent_secrets', 'commit_committer_check', 'commit_committer_name_check',
  'reject_unsigned_commits', 'reject_non_dco_commits',
] as const;

export type RegexField = (typeof REGEX_FIELDS)[number];
export type FlagField = (typeof FLAG_FIELDS)[number];

export type PushRuleSettings = Record<RegexField, string> & Record<FlagField, boolean> & { max_file_size: number };

export type PushRuleChanges = Partial<PushRuleSettings>;

/** A rule created with nothing set (GitLab's column defaults). */
export const DEFAULT_SETTINGS: Readonly<PushRuleSettings> = Object.freeze({
  commit_message_regex: '', commit_message_negative_regex: '', branch_name_regex: '', author_email_regex: '', file_name_regex: '',
  deny_delete_tag: false, member_check: false, prevent_secrets: false, commit_committer_check: false, commit_committer_name_check: false,
  reject_unsigned_commits: false, reject_non_dco_commits: false, max_file_size: 0,
});

// PushRuleable: SHORT_REGEX_COLUMNS ≤ 511, LONG_REGEX_COLUMNS (commit_message_negative_regex) ≤ 2047.
const MAX_LENGTH: Record<RegexField, number> = {
  commit_message_regex: 511, author_email_regex: 511, file_name_regex: 511, branch_name_regex: 511, commit_message_negative_regex: 2047,
};
// Gitlab::Database::MAX_INT_VALUE
const MAX_INT = 2147483647;

// The order PushRuleable declares its validations, which is the order of the keys of GitLab's error hash:
// max_file_size numericality, then `untrusted_regexp` and `length` over SHORT_REGEX_COLUMNS + LONG_REGEX_COLUMNS.
const VALIDATED_REGEX_ORDER: readonly RegexField[] = [
  'commit_message_regex', 'author_email_regex', 'file_name_regex', 'branch_name_regex', 'commit_message_negative_regex',
];

export function isEmptyChange(changes: PushRuleChanges): boolean {
  return Object.values(changes).every((v) => v === undefined);
}

/** The settings after applying the changes (unsent fields keep their value). */
export function applyChanges(current: Readonly<PushRuleSettings>, changes: PushRuleChanges): PushRuleSettings {
  const next: PushRuleSettings = { ...current };
  for (const f of REGEX_FIELDS) if (changes[f] !== undefined) next[f] = changes[f]!;
  for (const f of FLAG_FIELDS) if (changes[f] !== undefined) next[f] = changes[f]!;
  if (changes.max_file_size !== undefined) next.max_file_size = changes.max_file_size;
  return next;
}

/**
 * The model's errors (`render_validation_error!` → 400 `{"message": {field: [...]}}`), empty when valid. Messages are
 * Rails' (`numericality`, `length`) and `app/validators/untrusted_regexp_validator.rb`'s "not valid RE2 syntax: <error>".
 */
export function validateSettings(s: PushRuleSettings): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!Number.isInteger(s.max_file_size)) add('max_file_size', 'must be an integer');
  else if (s.max_file_size < 0) add('max_file_size', 'must be greater than or equal to 0');
  else if (s.max_file_size > MAX_INT) add('max_file_size', `must be less than or equal to ${MAX_INT}`);
  for (const f of VALIDATED_REGEX_ORDER) {
    const value = s[f];
    if (value === '') continue;
    const syntax = re2SyntaxError(value);
    if (syntax !== undefined) add(f, `not valid RE2 syntax: ${syntax}`);
  }
  for (const f of VALIDATED_REGEX_ORDER) {
    if ([...s[f]].length > MAX_LENGTH[f]) add(f, `is too long (maximum is ${MAX_LENGTH[f]} characters)`);
  }
  return errors;
}
