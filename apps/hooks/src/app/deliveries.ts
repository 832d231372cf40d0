import type { hooksV1 } from '@glp/proto';
import { recordNotFound, type Actor } from '@glp/service-kit';
import { errorBody400 } from '../domain/hook-errors';
import { INVALID_TRIGGER, isTestTrigger } from '../domain/test-triggers';
import { findHook } from '../store/hooks-store';
import { SERVICE_ACTOR, type HooksDeps } from './deps';
import { projectForHooks } from './project-access';

/**
 * The delivery side of the API, answered by the webhook-dispatcher once the caller's right to the hook is checked
 * here (GitLab `lib/api/hooks/trigger_test.rb`, `events.rb`, `resend_hook.rb`).
 */

async function hookOfProject(deps: HooksDeps, projectId: number, hookId: number): Promise<number> {
  const row = await findHook(deps.pool, projectId, hookId);
  if (!row) throw recordNotFound();
  return row.id;
}

/** Access (401/403 before Grape's params), then the trigger (400), then the hook (404), then a forced delivery. */
export async function testHook(deps: HooksDeps, actor: Actor, ref: hooksV1.ProjectRef | undefined, hookId: number, trigger: string): Promise<hooksV1.DeliveryOutcome> {
  const projectId = await projectForHooks(deps, actor, ref);
  if (!isTestTrigger(trigger)) throw errorBody400(INVALID_TRIGGER);
  await hookOfProject(deps, projectId, hookId);
  const { outcome } = await deps.dispatcher.executeTest({ hookId, projectId, trigger, userId: actor.id }, { actor: SERVICE_ACTOR });
  return outcome ?? { ok: false, status: 0, message: 'internal error' };
}

export async function listHookEvents(
  deps: HooksDeps, actor: Actor, ref: hooksV1.ProjectRef | undefined, hookId: number, q: { statuses: string[]; page: number; perPage: number },
): Promise<{ events: hooksV1.HookEvent[]; total: number }> {
  const projectId = await projectForHooks(deps, actor, ref);
  await hookOfProject(deps, projectId, hookId);
  const res = await deps.dispatcher.listDeliveries({ hookId, statuses: q.statuses, page: q.page, perPage: q.perPage }, { actor: SERVICE_ACTOR });
  return { events: res.events, total: Number(res.total) };
}

export async function resendHookEvent(deps: HooksDeps, actor: Actor, ref: hooksV1.ProjectRef | undefined, hookId: number, hookLogId: number): Promise<hooksV1.DeliveryOutcome> {
  const projectId = await projectForHooks(deps, actor, ref);
  await hookOfProject(deps, projectId, hookId);
  const { outcome } = await deps.dispatcher.resendDelivery({ hookId, hookLogId }, { actor: SERVICE_ACTOR });
  return outcome ?? { ok: false, status: 0, message: 'internal error' };
}
