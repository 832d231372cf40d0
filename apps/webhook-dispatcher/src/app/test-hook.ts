import { randomUUID } from 'node:crypto';
import { withTransaction } from '@glp/db';
import type { hooksV1, repositoryEventsV1 } from '@glp/proto';
import { DomainError, recordNotFound, unprocessable } from '@glp/service-kit';
import { HOOK_NAMES, untestableReason } from '../domain/hook-triggers';
import { buildSamplePushPayload, type PayloadUser } from '../domain/push-payload';
import { insertWebhookEvent } from '../store/events-store';
import { outcomeOf, performAttempt, recordAttempt } from './attempt';
import { SERVICE_ACTOR, type DispatcherDeps } from './deps';
import { findProject, payloadCommits, payloadProject } from './enqueue-push';
import { deliveriesTotal } from './metrics';

/** One hook's delivery target now (NOT_FOUND when the hook is gone). */
export async function targetOf(deps: Pick<DispatcherDeps, 'hooks'>, hookId: number): Promise<hooksV1.DeliveryTarget> {
  const { targets } = await deps.hooks.getDeliveryTargets({ hookIds: [hookId] }, { actor: SERVICE_ACTOR });
  const target = targets.find((t) => t.hookId === hookId);
  if (!target) throw recordNotFound();
  return target;
}

async function sampleUser(deps: Pick<DispatcherDeps, 'identity'>, userId: number): Promise<PayloadUser> {
  try {
    const { user } = await deps.identity.getUser({ selector: { $case: 'id', value: userId } }, { actor: SERVICE_ACTOR });
    if (user) return { id: user.id, name: user.name, username: user.username, email: user.publicEmail, avatarUrl: user.avatarUrl || null };
  } catch {
    // The sample names the user as far as known.
  }
  return { id: userId, name: '', username: '', email: '', avatarUrl: null };
}

/** The newest 3 commits of HEAD's branch (repo-admin lists newest first), and that branch ('' for an empty repository). */
async function newestCommits(deps: Pick<DispatcherDeps, 'repoAdmin'>, projectId: number): Promise<{ branch: string; commits: repositoryEventsV1.PushCommit[] }> {
  try {
    const { ref, commits } = await deps.repoAdmin.listCommits({ projectId, ref: '', limit: 3 }, { actor: SERVICE_ACTOR });
    return { branch: ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : '', commits };
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') return { branch: '', commits: [] };
    throw err;
  }
}

/**
 * POST /projects/:id/hooks/:hook_id/test/:trigger (GitLab's `TestHooks::ProjectService` + `Integrations::ProjectTestData`):
 * push and tag push send `Push.build_sample` (the last 3 commits of the default branch, or SAMPLE_DATA when the
 * repository is empty); any other trigger has no data on this platform and is refused with GitLab's message. The
 * request is made now and forced (even to a disabled hook), logged and counted in the hook's health like any other.
 */
export async function executeTest(deps: DispatcherDeps, req: { hookId: number; projectId: number; trigger: string; userId: number }): Promise<hooksV1.DeliveryOutcome> {
  const reason = untestableReason(req.trigger);
  if (reason) throw unprocessable(reason);
  const target = await targetOf(deps, req.hookId);
  const project = await findProject(deps, req.projectId);
  if (!project || target.projectId !== req.projectId) throw recordNotFound();
  // Asked of repo-admin even when projects still says empty (its read model follows pushes a moment later).
  const { branch, commits } = await newestCommits(deps, project.id);
  const attrs = { ...payloadProject(project), defaultBranch: branch || project.defaultBranch || null };
  const payload = buildSamplePushPayload(attrs, await sampleUser(deps, req.userId), payloadCommits(commits), deps.settings.externalUrl);
  const hookName = HOOK_NAMES[req.trigger]!;
  const eventId = randomUUID();
  const attempt = await performAttempt(deps, target, { eventId, hookName, payload, idempotencyKey: randomUUID(), deliveryId: null });
  await withTransaction(deps.pool, async (client) => {
    await insertWebhookEvent(client, { eventId, projectId: project.id, trigger: hookName, payload, occurredAt: attempt.startedAt });
    await recordAttempt(client, deps, project.id, attempt);
  });
  deliveriesTotal.inc({ outcome: attempt.ok ? 'success' : 'failure' });
  return outcomeOf(attempt);
}
