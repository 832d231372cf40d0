import { pushRulesV1 } from '@glp/proto';
import { systemActor, type Logger, type PromiseClient } from '@glp/service-kit';
import type { GitRunner } from '../disk/bare-repository';
import { walkNewCommits, type WalkedCommit } from '../disk/commit-walker';
import type { PushContext, PushPolicy, PushVerdict } from '../domain/push-policy';
import { newTips } from '../domain/push-rules-batches';
import type { RepoAdminDeps } from './deps';
import { userById } from './users';

const SERVICE = systemActor('repo-admin');

/**
 * What the pre-receive check says when push-rules cannot answer: the push is refused (fail closed), as GitLab refuses a
 * push whose `/internal/allowed` call fails (gitlab-shell/gitaly print `GitLab: Internal API unreachable`,
 * gitlab-shell `internal/gitlabnet/client.go`).
 */
export const PUSH_RULES_UNAVAILABLE = 'Internal API unreachable';

export type PushRulesClient = Pick<PromiseClient<pushRulesV1.PushRulesServiceClient>, 'getPushChecks' | 'checkPush'>;

export interface PushRulesCheckDeps extends Pick<RepoAdminDeps, 'identity'> {
  pushRules: PushRulesClient;
  git: GitRunner;
  logger: Logger;
  /** Deadline of each push-rules call. */
  deadlineMs?: number;
}

const toPushedCommit = (c: WalkedCommit) => pushRulesV1.PushedCommit.fromPartial({
  id: c.id, message: c.message, authorName: c.authorName, authorEmail: c.authorEmail, committerName: c.committerName, committerEmail: c.committerEmail,
  signed: c.signed, files: c.files.map((f) => ({ path: f.path, oldPath: f.oldPath, status: f.status, size: f.size })),
});

/** The pusher's display name (commit_committer_name_check); the username when identity cannot say. */
async function pusherOf(deps: PushRulesCheckDeps, ctx: PushContext): Promise<pushRulesV1.Pusher> {
  const base = { userId: ctx.actor.id, username: ctx.actor.username, name: ctx.actor.username };
  try {
    const user = ctx.actor.kind === 'user' && ctx.actor.id > 0 ? await userById(deps, ctx.actor.id) : undefined;
    return pushRulesV1.Pusher.fromPartial({ ...base, name: user?.name || base.name });
  } catch (err) {
    deps.logger.warn({ err, user_id: ctx.actor.id }, 'pusher name not read from identity');
    return pushRulesV1.Pusher.fromPartial(base);
  }
}

/**
 * The project's push rule (GitLab EE `ee/lib/ee/gitlab/checks/change_access.rb` `push_rule_check` + `commits_check`,
 * run by `/internal/allowed` in the pre-receive hook), after the default policies. One GetPushChecks call says whether
 * the project has a rule and what it needs: without one the push costs that call only. Otherwise the commits new to
 * the repository are walked (only as deep as the rule needs: messages/emails/signatures, changed paths, blob sizes) and
 * sent to CheckPush in batches with the ref changes and the default branch; the first denial refuses the push with
 * push-rules' message (GitLab's). A push without new commits (a deletion, a tag on an existing commit) is one CheckPush
 * with the ref changes alone. Any failure to ask (push-rules down, a deadline, git failing to read the push) refuses the
 * push: nothing lands unchecked.
 */
export function pushRulesPolicy(deps: PushRulesCheckDeps): PushPolicy {
  const call = { actor: SERVICE, deadlineMs: deps.deadlineMs ?? 10_000 };
  return async (ctx): Promise<PushVerdict> => {
    const unavailable = (err: unknown, what: string): PushVerdict => {
      deps.logger.error({ err, project_id: ctx.projectId }, `push rules not checked: ${what}`);
      return { allowed: false, message: PUSH_RULES_UNAVAILABLE };
    };
    let checks: pushRulesV1.GetPushChecksResponse;
    try {
      checks = await deps.pushRules.getPushChecks({ projectId: ctx.projectId }, call);
    } catch (err) {
      return unavailable(err, 'GetPushChecks failed');
    }
    if (ctx.observed) ctx.observed.pushRulesActive = checks.active;
    if (!checks.active) return { allowed: true };

    const walk = checks.needsCommits || checks.needsFiles || checks.needsSignatures;
    const base = {
      projectId: ctx.projectId,
      pusher: walk ? await pusherOf(deps, ctx) : pushRulesV1.Pusher.fromPartial({ userId: ctx.actor.id, username: ctx.actor.username, name: ctx.actor.username }),
      changes: ctx.changes.map((c) => ({ ref: c.ref, oldRev: c.oldRev, newRev: c.newRev })),
      defaultBranch: ctx.defaultBranch ?? '',
    };
    const check = async (commits: pushRulesV1.PushedCommit[]): Promise<PushVerdict> => {
      const res = await deps.pushRules.checkPush(pushRulesV1.CheckPushRequest.fromPartial({ ...base, commits }), call);
      return res.allowed ? { allowed: true } : { allowed: false, message: res.message };
    };
    let sent = 0;
    let stage = 'walking the new commits';
    try {
      if (walk) {
        const batches = walkNewCommits(deps.git, ctx.repoDir, ctx.quarantine, newTips(ctx.changes), {
          files: checks.needsFiles, sizes: checks.needsFiles && checks.maxFileSizeBytes > 0,
        });
        for await (const batch of batches) {
          stage = 'CheckPush failed';
          sent++;
          const verdict = await check(batch.map(toPushedCommit));
          if (!verdict.allowed) return verdict; // ends the walk (its git processes are killed)
          stage = 'walking the new commits';
        }
      }
      stage = 'CheckPush failed';
      if (sent === 0) return await check([]);
      return { allowed: true };
    } catch (err) {
      return unavailable(err, stage);
    }
  };
}
