import type { pushRulesV1 } from '@glp/proto';

const iso = (d?: Date) => (d ? d.toISOString() : null);
const text = (s: string) => (s === '' ? null : s);

/**
 * GitLab's `EE::API::Entities::ProjectPushRule` (`ee/lib/ee/api/entities/project_push_rule.rb`), fields in its order;
 * ONE literal. Regexes never set are `null` (GitLab's nullable columns).
 */
export function pushRuleEntity(r: pushRulesV1.PushRule) {
  return {
    id: r.id,
    project_id: r.projectId,
    created_at: iso(r.createdAt),
    commit_message_regex: text(r.commitMessageRegex),
    commit_message_negative_regex: text(r.commitMessageNegativeRegex),
    branch_name_regex: text(r.branchNameRegex),
    deny_delete_tag: r.denyDeleteTag,
    member_check: r.memberCheck,
    prevent_secrets: r.preventSecrets,
    author_email_regex: text(r.authorEmailRegex),
    file_name_regex: text(r.fileNameRegex),
    max_file_size: r.maxFileSize,
    commit_committer_check: r.commitCommitterCheck,
    commit_committer_name_check: r.commitCommitterNameCheck,
    reject_unsigned_commits: r.rejectUnsignedCommits,
    reject_non_dco_commits: r.rejectNonDcoCommits,
  };
}
