import type { pushRulesV1 } from '@glp/proto';
import { forbidden, type Actor } from '@glp/service-kit';
import { isRepoAdmin } from '../domain/push-rule-access';
import { checkPush as decide, lookupsNeeded, planFor, type PushDecision, type PushInput, type PushLookups, type PushPlan } from '../domain/push-check';
import { findPushRule } from '../store/push-rules-store';
import { SERVICE_ACTOR, type PushRulesDeps } from './deps';

/** GetPushChecks: what repo-admin's pre-receive check must collect for the project's rule (repo-admin only). */
export async function getPushChecks(deps: PushRulesDeps, actor: Actor, projectId: number): Promise<PushPlan> {
  if (!isRepoAdmin(actor)) throw forbidden();
  return planFor(await findPushRule(deps.pool, projectId));
}

/**
 * CheckPush: the project's rule against a batch of the push (repo-admin only). Identity is asked only for what the
 * rule needs: one FindUsersByEmails for every distinct author/committer address (member_check) and the pusher's user
 * (committer checks). An identity failure fails the call (the push is refused by repo-admin), never allows it.
 */
export async function checkPush(deps: PushRulesDeps, actor: Actor, req: pushRulesV1.CheckPushRequest): Promise<PushDecision> {
  if (!isRepoAdmin(actor)) throw forbidden();
  const rule = await findPushRule(deps.pool, req.projectId);
  if (!rule) return { allowed: true, message: '' };
  const input: PushInput = {
    changes: req.changes.map((c) => ({ ref: c.ref, oldRev: c.oldRev, newRev: c.newRev })),
    defaultBranch: req.defaultBranch,
    commits: req.commits.map((c) => ({
      id: c.id, message: c.message, authorName: c.authorName, authorEmail: c.authorEmail, committerName: c.committerName,
      committerEmail: c.committerEmail, signed: c.signed,
      files: c.files.map((f) => ({ path: f.path, oldPath: f.oldPath, status: f.status, size: Number(f.size) })),
    })),
  };
  const needed = lookupsNeeded(rule, input);
  const lookups: PushLookups = {};
  const opts = { actor: SERVICE_ACTOR };
  const [matches, pusher] = await Promise.all([
    needed.emails.length > 0 ? deps.identity.findUsersByEmails({ emails: needed.emails }, opts) : undefined,
    needed.pusher && req.pusher && req.pusher.userId > 0
      ? deps.identity.getUser({ selector: { $case: 'id', value: req.pusher.userId } }, opts).then((r) => r.user)
      : undefined,
  ]);
  if (matches) lookups.knownEmails = new Set(matches.matches.map((m) => m.email.toLowerCase()));
  if (needed.pusher) lookups.pusher = { email: pusher?.email ?? '', name: pusher?.name ?? '' };
  return decide(rule, input, lookups);
}
