import { withTransaction } from '@glp/db';
import { identityV1, projectsV1 } from '@glp/proto';
import { DomainError, forbidden, startPeriodicTask, systemActor, type Actor, type Logger } from '@glp/service-kit';
import { recordAccessRequestApproved, recordAccessRequestDenied } from '../events/access-request-events';
import { deleteRequest, lockStaleApprovals, unmarkApproving } from '../store/requests-store';
import { isRefusal } from './access-requests';
import type { AccessRequestsDeps } from './deps';
import { ensureMember } from './memberships';

const SERVICE = systemActor('access-requests');

/**
 * The approver of an interrupted approval as they are now, to complete it as: their admin flag and username from
 * identity at this moment (not at approval time), so the owning service re-checks the rights they still have. One who
 * can no longer act (deleted, blocked) is refused like a caller without the right. An approval recorded without a user
 * (a system caller) completes as this service.
 */
async function approverNow(deps: AccessRequestsDeps, approverId: number): Promise<Actor> {
  if (!approverId) return SERVICE;
  let user;
  try {
    user = (await deps.identity.getUser({ selector: { $case: 'id', value: approverId } }, { actor: SERVICE })).user;
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') throw forbidden();
    throw err;
  }
  if (!user || user.state !== 'active') throw forbidden();
  return { kind: 'user', id: user.id, username: user.username, admin: user.isAdmin, scopes: ['api'], external: user.external };
}

/** Whether the source still exists (asked as this service: an approver who lost sight of it is told 404 too). */
async function sourceExists(deps: AccessRequestsDeps, kind: 'group' | 'project', id: number): Promise<boolean> {
  try {
    if (kind === 'group') await deps.identity.getGroup(identityV1.GetGroupRequest.fromPartial({ group: { selector: { $case: 'id', value: id } } }), { actor: SERVICE });
    else await deps.projects.getProject(projectsV1.GetProjectRequest.fromPartial({ selector: { $case: 'id', value: id } }), { actor: SERVICE });
    return true;
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') return false;
    throw err;
  }
}

/**
 * Finishes approvals interrupted after their intent was committed (a crash, an outage of the owning service): makes
 * the membership (idempotent) as the approver with their rights as they are now, and removes the request. A source
 * that is gone drops the request (AccessRequestDenied); any other refusal (the approver lost the right, or can no
 * longer act) puts it back to pending, as GitLab leaves a request whose approval was refused. Rows are locked with
 * SKIP LOCKED, so replicas share the work. Returns how many approvals were completed.
 */
export async function completeApprovals(deps: AccessRequestsDeps, logger: Logger, olderThanMs: number): Promise<number> {
  let done = 0;
  await withTransaction(deps.pool, async (client) => {
    for (const r of await lockStaleApprovals(client, olderThanMs, 20)) {
      const level = r.approved_level ?? 30;
      try {
        await ensureMember(deps, await approverNow(deps, r.approved_by_id ?? 0), r.source_kind, r.source_id, r.user_id, level);
      } catch (err) {
        if (!isRefusal(err)) throw err; // still unavailable: the next round retries
        if (err.kind === 'not_found' && !(await sourceExists(deps, r.source_kind, r.source_id))) {
          await deleteRequest(client, r.source_kind, r.source_id, r.user_id, 'approving');
          await recordAccessRequestDenied(client, deps.topic, { kind: r.source_kind, sourceId: r.source_id, userId: r.user_id, deniedById: 0 }, SERVICE);
        } else {
          await unmarkApproving(client, r.source_kind, r.source_id, r.user_id);
        }
        logger.warn({ err, source: `${r.source_kind}:${r.source_id}`, user_id: r.user_id }, 'interrupted approval refused by the owning service');
        continue;
      }
      await deleteRequest(client, r.source_kind, r.source_id, r.user_id, 'approving');
      await recordAccessRequestApproved(client, deps.topic, {
        kind: r.source_kind, sourceId: r.source_id, userId: r.user_id, level, approvedById: r.approved_by_id ?? 0,
      }, SERVICE);
      done++;
    }
  });
  if (done) logger.info({ completed: done }, 'completed interrupted approvals');
  return done;
}

/** Runs `completeApprovals` every `intervalMs` until stopped; failures are logged and retried. */
export function startApprovalCompletion(deps: AccessRequestsDeps, logger: Logger, intervalMs: number, olderThanMs: number): { stop(): Promise<void> } {
  return startPeriodicTask('approval completion', () => completeApprovals(deps, logger, olderThanMs), logger, intervalMs);
}
