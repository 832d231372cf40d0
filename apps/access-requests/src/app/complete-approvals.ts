import { withTransaction } from '@glp/db';
import { systemActor, type Logger } from '@glp/service-kit';
import { recordAccessRequestApproved, recordAccessRequestDenied } from '../events/access-request-events';
import { deleteRequest, lockStaleApprovals, unmarkApproving } from '../store/requests-store';
import { isRefusal } from './access-requests';
import type { AccessRequestsDeps } from './deps';
import { ensureMember } from './memberships';

const SERVICE = systemActor('access-requests');

/**
 * Finishes approvals interrupted after their intent was committed (a crash, an outage of the owning service): makes
 * the membership (idempotent) and removes the request. A source that is gone drops the request (AccessRequestDenied);
 * any other refusal puts it back to pending. Rows are locked with SKIP LOCKED, so replicas share the work. Returns how
 * many approvals were completed.
 */
export async function completeApprovals(deps: AccessRequestsDeps, logger: Logger, olderThanMs: number): Promise<number> {
  let done = 0;
  await withTransaction(deps.pool, async (client) => {
    for (const r of await lockStaleApprovals(client, olderThanMs, 20)) {
      const level = r.approved_level ?? 30;
      try {
        await ensureMember(deps, SERVICE, r.source_kind, r.source_id, r.user_id, level);
      } catch (err) {
        if (!isRefusal(err)) throw err; // still unavailable: the next round retries
        if (err.kind === 'not_found') {
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
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = completeApprovals(deps, logger, olderThanMs).catch((err: unknown) => logger.warn({ err }, 'approval completion failed; retrying'));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
