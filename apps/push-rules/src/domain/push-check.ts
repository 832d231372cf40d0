import type { PushRuleSettings } from './push-rule-attributes';
import { FILES_DENYLIST } from './secret-files';
import { untrustedMatch } from '@glp/untrusted-regexp';

/**
 * Push-time enforcement of a project's push rule, pure (no I/O): GitLab EE `ee/lib/ee/gitlab/checks/change_access.rb`
 * (`push_rule_check`, `file_size_check`, `file_name_validation`), `ee/lib/ee/gitlab/checks/push_rules/commit_check.rb`
 * (`check_commit`) and `ee/app/models/concerns/push_ruleable.rb` (the matchers). The first rule broken refuses the
 * push with GitLab's message (shown by git as `remote: GitLab: <message>`).
 */

export interface RefChange {
  ref: string;
  oldRev: string;
  newRev: string;
}

export interface ChangedFile {
  path: string;
  oldPath: string;
  /** added | modified | deleted | renamed | copied | type_changed */
  status: string;
  size: number;
}

export interface PushedCommit {
  id: string;
  message: string;
  authorName: string;
  authorEmail: string;
  committerName: string;
  committerEmail: string;
  signed: boolean;
  files: ChangedFile[];
}

export interface PushInput {
  changes: RefChange[];
  defaultBranch: string;
  commits: PushedCommit[];
}

/** What the use case looked up for the rules that need it. */
export interface PushLookups {
  /** member_check: the addresses (lower-cased) that belong to a user (`User.find_by_any_email`). */
  knownEmails?: ReadonlySet<string>;
  /** commit_committer_check / commit_committer_name_check: the pusher's verified email and name. */
  pusher?: { email: string; name: string };
}

export interface PushDecision {
  allowed: boolean;
  message: string;
}

/** What repo-admin must collect for a rule (GetPushChecks). */
export interface PushPlan {
  active: boolean;
  needsCommits: boolean;
  needsFiles: boolean;
  needsSignatures: boolean;
  maxFileSizeBytes: number;
}

const isZero = (rev: string) => rev === '' || /^0+$/.test(rev);
const MIB = 1024 * 1024;

/** PushRuleable#commit_validation?: some rule looks at each new commit (its message, emails, signature, authors). */
export function commitValidation(r: PushRuleSettings): boolean {
  return r.commit_message_regex !== '' || r.commit_message_negative_regex !== '' || r.branch_name_regex !== '' ||
    r.author_email_regex !== '' || r.reject_unsigned_commits || r.reject_non_dco_commits || r.commit_committer_check ||
    r.commit_committer_name_check || r.member_check || r.file_name_regex !== '' || r.prevent_secrets;
}

function fileChecks(r: PushRuleSettings): boolean {
  return r.file_name_regex !== '' || r.prevent_secrets || r.max_file_size > 0;
}

export function planFor(r: PushRuleSettings | undefined): PushPlan {
  if (!r) return { active: false, needsCommits: false, needsFiles: false, needsSignatures: false, maxFileSizeBytes: 0 };
  const commitRules = r.commit_message_regex !== '' || r.commit_message_negative_regex !== '' || r.author_email_regex !== '' ||
    r.reject_unsigned_commits || r.reject_non_dco_commits || r.commit_committer_check || r.commit_committer_name_check || r.member_check;
  const files = fileChecks(r);
  return {
    active: commitRules || files || r.deny_delete_tag || r.branch_name_regex !== '',
    needsCommits: commitRules || files,
    needsFiles: files,
    needsSignatures: r.reject_unsigned_commits,
    maxFileSizeBytes: r.max_file_size * MIB,
  };
}

/** The lookups a push needs: member_check → identity FindUsersByEmails; committer checks → the pusher's user. */
export function lookupsNeeded(r: PushRuleSettings, input: PushInput): { emails: string[]; pusher: boolean } {
  const emails = new Set<string>();
  if (r.member_check && refUpdated(input)) {
    for (const c of input.commits) {
      emails.add(c.authorEmail.toLowerCase());
      if (committerDiffers(c)) emails.add(c.committerEmail.toLowerCase());
    }
  }
  return { emails: [...emails].filter((e) => e !== ''), pusher: (r.commit_committer_check || r.commit_committer_name_check) && refUpdated(input) };
}

// GitLab compares `commit.author_email.casecmp(commit.committer_email) == -1` (only a committer sorting before the
// author is looked up — a quirk of its code); the intent, which this follows, is "a committer other than the author".
function committerDiffers(c: PushedCommit): boolean {
  return c.authorEmail.toLowerCase() !== c.committerEmail.toLowerCase();
}

const deletion = (c: RefChange) => isZero(c.newRev);
const branchOf = (ref: string) => (ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined);
const tagOf = (ref: string) => (ref.startsWith('refs/tags/') ? ref.slice('refs/tags/'.length) : undefined);

/**
 * Commit checks run for every push that creates or moves a ref, tags included. GitLab runs them for branch pushes only
 * (`push_rule_branch_check`), so a commit refused on a branch could land as a tag first and then on a branch, no longer
 * new to the repository; checking the commits of every ref closes that walk-around.
 */
function refUpdated(input: PushInput): boolean {
  return input.changes.some((c) => !deletion(c));
}

const deny = (message: string): PushDecision => ({ allowed: false, message });
const ALLOWED: PushDecision = Object.freeze({ allowed: true, message: '' });

/** `push_rule_tag_check` / `push_rule_branch_check` (name part) of one ref change. */
function refError(r: PushRuleSettings, change: RefChange, defaultBranch: string): string | undefined {
  if (tagOf(change.ref) !== undefined) {
    // tag_deletion_denied_by_push_rule?: deny_delete_tag && deletion? && tag_exists? (it had an old value)
    if (r.deny_delete_tag && deletion(change) && !isZero(change.oldRev)) return 'You cannot delete a tag';
    return undefined;
  }
  const branch = branchOf(change.ref);
  // skip_branch_name_push_rule?: deletion?, blank branch name, or the project's default branch
  if (branch === undefined || branch === '' || deletion(change) || branch === defaultBranch) return undefined;
  if (r.branch_name_regex !== '' && !untrustedMatch(r.branch_name_regex, branch)) {
    return `Branch name does not follow the pattern '${r.branch_name_regex}'`;
  }
  return undefined;
}

// PushRuleable::DCO_COMMIT_REGEX
const DCO_COMMIT_REGEX = 'Signed-off-by:.+<.+@.+>';

/** CommitCheck#check_commit: the first broken rule of one commit, in GitLab's order. */
function commitError(r: PushRuleSettings, c: PushedCommit, lookups: PushLookups): string | undefined {
  if (r.commit_message_regex !== '' && !untrustedMatch(r.commit_message_regex, c.message, true)) {
    return `Commit message does not follow the pattern '${r.commit_message_regex}'`;
  }
  // commit_message_blocked?: the message chomped (one trailing line break), multiline
  if (r.commit_message_negative_regex !== '' && untrustedMatch(r.commit_message_negative_regex, c.message.replace(/\r?\n$|\r$/, ''), true)) {
    return `Commit message contains the forbidden pattern '${r.commit_message_negative_regex}'`;
  }
  if (r.author_email_regex !== '' && !untrustedMatch(r.author_email_regex, c.committerEmail)) {
    return `Committer's email '${c.committerEmail}' does not follow the pattern '${r.author_email_regex}'`;
  }
  if (r.author_email_regex !== '' && !untrustedMatch(r.author_email_regex, c.authorEmail)) {
    return `Author's email '${c.authorEmail}' does not follow the pattern '${r.author_email_regex}'`;
  }
  // committer_check: `current_user.verified_email?(committer_email)` (identity keeps one, confirmed, address per user)
  if (r.commit_committer_check && c.committerEmail.toLowerCase() !== (lookups.pusher?.email ?? '').toLowerCase()) {
    return `You cannot push commits for '${c.committerEmail}'. You can only push commits that were committed with one of your own verified emails.`;
  }
  // committer_name_allowed?: `current_user.name == committer_name` (message not found in the GitLab sources at hand)
  if (r.commit_committer_name_check && c.committerName !== (lookups.pusher?.name ?? '')) {
    return `Your git commit name '${c.committerName}' does not match your user name '${lookups.pusher?.name ?? ''}'`;
  }
  if (r.reject_unsigned_commits && !c.signed) return 'Commit must be signed with a GPG key';
  // non_dco_commit_allowed? (message as in `ee/app/services/ee/merge_requests/...`: "Commit message must contain a DCO signoff")
  if (r.reject_non_dco_commits && !untrustedMatch(DCO_COMMIT_REGEX, c.message)) return 'Commit message must contain a DCO signoff';
  if (r.member_check) {
    const known = lookups.knownEmails ?? new Set<string>();
    if (!known.has(c.authorEmail.toLowerCase())) return `Author '${c.authorEmail}' is not a member of team`;
    if (committerDiffers(c) && !known.has(c.committerEmail.toLowerCase())) return `Committer '${c.committerEmail}' is not a member of team`;
  }
  return undefined;
}

/** Ruby's String#inspect for the pattern in the file-name message (`denylisted_regex.inspect`). */
export function rubyInspect(s: string): string {
  const escaped = s.replace(/[\\"\n\t\r]|#(?=[{$@])/g, (ch) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r', '#': '\\#' })[ch]!);
  return `"${escaped}"`;
}

/** PushRuleable#filename_denylisted?: the first pattern (secrets list first, then file_name_regex) the path matches. */
function denylistedBy(r: PushRuleSettings, path: string): string | undefined {
  const patterns = [...(r.prevent_secrets ? FILES_DENYLIST : []), ...(r.file_name_regex !== '' ? [r.file_name_regex] : [])];
  return patterns.find((p) => untrustedMatch(p, path));
}

/** May this push land? GitLab's order: ref checks, the commits, file sizes, then the files' names. */
export function checkPush(r: PushRuleSettings | undefined, input: PushInput, lookups: PushLookups = {}): PushDecision {
  if (!r) return ALLOWED;
  for (const change of input.changes) {
    const error = refError(r, change, input.defaultBranch);
    if (error) return deny(error);
  }
  if (commitValidation(r) && refUpdated(input)) {
    for (const c of input.commits) {
      const error = commitError(r, c, lookups);
      if (error) return deny(error);
    }
  }
  if (r.max_file_size > 0) {
    for (const c of input.commits) {
      const large = c.files.find((f) => f.status !== 'deleted' && f.size > r.max_file_size * MIB);
      // file_size_check: "File #{path.inspect} is larger than the allowed size of #{max_file_size} MB"
      if (large) return deny(`File ${rubyInspect(large.path)} is larger than the allowed size of ${r.max_file_size} MB`);
    }
  }
  if (r.prevent_secrets || r.file_name_regex !== '') {
    for (const c of input.commits) {
      for (const f of c.files) {
        if (f.status !== 'added' && f.status !== 'renamed' && f.status !== 'copied') continue;
        const pattern = denylistedBy(r, f.path);
        // ee/lib/ee/gitlab/checks/diff_check.rb file_name_validation
        if (pattern !== undefined) return deny(`File name ${f.path} was prohibited by the pattern ${rubyInspect(pattern)}.`);
      }
    }
  }
  return ALLOWED;
}
