import { withTransaction } from '@glp/db';
import type { accessRequestsV1 } from '@glp/proto';
import { DomainError, forbidden, invalid, recordNotFound, type Actor } from '@glp/service-kit';
import { approvalLevel, canDeny, canManageRequests, decisionRefusal, requestRefusal } from '../domain/access-request-rules';
import { recordAccessRequestApproved, recordAccessRequestDenied, recordAccessRequested } from '../events/access-request-events';
import { deleteRequest, insertRequest, listPending, markApproving, requestExists, unmarkApproving, type RequestRow } from '../store/requests-store';
import type { AccessRequestsDeps } from './deps';
import { ensureMember, type Membership } from './memberships';
import { sourceFacts } from './sources';

/** The answer of the owning service is final (the membership cannot be made as asked), not a transient failure. */
export function isRefusal(err: unknown): err is DomainError {
  return err instanceof DomainError && !['unavailable', 'internal'].includes(err.kind);
}


/** Approving or denying: 404 for a user without a request (whoever asks), then 403 for a caller who may not decide. */
async function refuseDecision(deps: AccessRequestsDeps, s: { kind: RequestRow['source_kind']; id: number }, userId: number, callerMayDecide: boolean): Promise<void> {
  const refusal = decisionRefusal(callerMayDecide, await requestExists(deps.pool, s.kind, s.id, userId));
  if (refusal === 'not_found') throw recordNotFound();
  if (refusal === 'forbidden') throw forbidden();
}

/** GET .../access_requests: project Maintainers, group Owners. */
export async function listRequests(
  deps: AccessRequestsDeps, actor: Actor, source: accessRequestsV1.Source | undefined, page: number, perPage: number,
): Promise<{ rows: RequestRow[]; total: number }> {
  const s = await sourceFacts(deps, actor, source);
  if (!canManageRequests(actor, s)) throw forbidden();
  return listPending(deps.pool, s.kind, s.id, perPage, (page - 1) * perPage);
}

/** POST .../access_requests: the caller asks for access. */
export async function requestAccess(deps: AccessRequestsDeps, actor: Actor, source: accessRequestsV1.Source | undefined): Promise<RequestRow> {
  const s = await sourceFacts(deps, actor, source);
  if (requestRefusal(actor, s)) throw forbidden();
  const { user } = await deps.identity.getUser({ selector: { $case: 'id', value: actor.id } }, { actor });
  return withTransaction(deps.pool, async (client) => {
    const row = await insertRequest(client, {
      kind: s.kind, sourceId: s.id, userId: user!.id, username: user!.username, name: user!.name, userState: user!.state, avatarUrl: user!.avatarUrl,
    });
    if (!row) throw invalid({ user_id: ['already exists in source'] });
    await recordAccessRequested(client, deps.topic, { kind: s.kind, sourceId: s.id, userId: row.user_id, requestedAt: row.requested_at }, actor);
    return row;
  });
}

/**
 * PUT .../access_requests/:user_id/approve, as a saga with a durable intent:
 * 1. the request is marked `approving` (with the level) — committed;
 * 2. the owning service makes the membership, as the approver (it re-checks the permission; idempotent);
 * 3. the request is deleted with AccessRequestApproved in the outbox — committed.
 * A refusal at 2 puts the request back to pending; a crash or an outage after 1 leaves the intent, which
 * `completeApprovals` finishes. So there is never a member whose request stays, nor a removed request without a member.
 */
export async function approve(
  deps: AccessRequestsDeps, actor: Actor, source: accessRequestsV1.Source | undefined, userId: number, requestedLevel: number,
): Promise<Membership> {
  const s = await sourceFacts(deps, actor, source);
  await refuseDecision(deps, s, userId, canManageRequests(actor, s));
  const { level, errors } = approvalLevel(s.kind, requestedLevel);
  const approverId = actor.kind === 'user' ? actor.id : 0;
  await withTransaction(deps.pool, async (client) => {
    const intent = await markApproving(client, s.kind, s.id, userId, level, approverId);
    if (!intent) throw recordNotFound();
    if (errors) throw invalid(errors); // rolls the intent back
  });
  let member: Membership;
  try {
    member = await ensureMember(deps, actor, s.kind, s.id, userId, level);
  } catch (err) {
    if (isRefusal(err)) await unmarkApproving(deps.pool, s.kind, s.id, userId);
    throw err;
  }
  await finishApproval(deps, actor, { kind: s.kind, sourceId: s.id, userId, level, approvedById: approverId });
  return member;
}

/** Step 3: the request goes, AccessRequestApproved goes out. */
export async function finishApproval(
  deps: AccessRequestsDeps, actor: Actor, a: { kind: RequestRow['source_kind']; sourceId: number; userId: number; level: number; approvedById: number },
): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    if (await deleteRequest(client, a.kind, a.sourceId, a.userId, 'approving')) {
      await recordAccessRequestApproved(client, deps.topic, a, actor);
    }
  });
}

/** DELETE .../access_requests/:user_id: managers deny, a requester withdraws. */
export async function deny(deps: AccessRequestsDeps, actor: Actor, source: accessRequestsV1.Source | undefined, userId: number): Promise<void> {
  const s = await sourceFacts(deps, actor, source);
  await refuseDecision(deps, s, userId, canDeny(actor, s, userId));
  await withTransaction(deps.pool, async (client) => {
    const row = await deleteRequest(client, s.kind, s.id, userId, 'pending');
    if (!row) throw recordNotFound();
    await recordAccessRequestDenied(client, deps.topic, { kind: s.kind, sourceId: s.id, userId, deniedById: actor.kind === 'user' ? actor.id : 0 }, actor);
  });
}
