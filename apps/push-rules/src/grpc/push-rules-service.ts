import { pushRulesV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { PushRulesDeps } from '../app/deps';
import { checkPush, getPushChecks } from '../app/push-checks';
import { createPushRule, deletePushRule, getPushRule, updatePushRule } from '../app/push-rules';
import type { PushRuleChanges } from '../domain/push-rule-attributes';
import type { PushRuleRow } from '../store/push-rules-store';

function toProtoRule(r: PushRuleRow): pushRulesV1.PushRule {
  return pushRulesV1.PushRule.fromPartial({
    id: r.id, projectId: r.project_id, createdAt: r.created_at,
    commitMessageRegex: r.commit_message_regex, commitMessageNegativeRegex: r.commit_message_negative_regex,
    branchNameRegex: r.branch_name_regex, denyDeleteTag: r.deny_delete_tag, memberCheck: r.member_check,
    preventSecrets: r.prevent_secrets, authorEmailRegex: r.author_email_regex, fileNameRegex: r.file_name_regex,
    maxFileSize: r.max_file_size, commitCommitterCheck: r.commit_committer_check, commitCommitterNameCheck: r.commit_committer_name_check,
    rejectUnsignedCommits: r.reject_unsigned_commits, rejectNonDcoCommits: r.reject_non_dco_commits,
  });
}

function toChanges(i: pushRulesV1.PushRuleInput | undefined): PushRuleChanges {
  const input = i ?? {};
  return {
    commit_message_regex: input.commitMessageRegex, commit_message_negative_regex: input.commitMessageNegativeRegex,
    branch_name_regex: input.branchNameRegex, author_email_regex: input.authorEmailRegex, file_name_regex: input.fileNameRegex,
    deny_delete_tag: input.denyDeleteTag, member_check: input.memberCheck, prevent_secrets: input.preventSecrets,
    commit_committer_check: input.commitCommitterCheck, commit_committer_name_check: input.commitCommitterNameCheck,
    reject_unsigned_commits: input.rejectUnsignedCommits, reject_non_dco_commits: input.rejectNonDcoCommits,
    max_file_size: input.maxFileSize,
  };
}

/** gRPC adapters: decode, call the use case (app/), encode. */
export function pushRulesService(deps: PushRulesDeps): AsyncService<pushRulesV1.PushRulesServiceServer> {
  return {
    async getPushRule(req, ctx) {
      const row = await getPushRule(deps, ctx.actor, req.project);
      return { rule: row ? toProtoRule(row) : undefined };
    },
    async createPushRule(req, ctx) {
      return { rule: toProtoRule(await createPushRule(deps, ctx.actor, req.project, toChanges(req.input))) };
    },
    async updatePushRule(req, ctx) {
      return { rule: toProtoRule(await updatePushRule(deps, ctx.actor, req.project, toChanges(req.input))) };
    },
    async deletePushRule(req, ctx) {
      await deletePushRule(deps, ctx.actor, req.project);
      return {};
    },
    async getPushChecks(req, ctx) {
      const plan = await getPushChecks(deps, ctx.actor, req.projectId);
      return {
        active: plan.active, needsCommits: plan.needsCommits, needsFiles: plan.needsFiles, needsSignatures: plan.needsSignatures,
        maxFileSizeBytes: plan.maxFileSizeBytes,
      };
    },
    async checkPush(req, ctx) {
      return checkPush(deps, ctx.actor, req);
    },
  };
}
