import type { hooksV1 } from '@glp/proto';
import { forbidden, type Actor } from '@glp/service-kit';
import { hookWantsRef } from '../domain/branch-filter';
import { EVENT_FLAGS, interpolateUrl, type EventFlag } from '../domain/hook-attributes';
import { isDispatcher } from '../domain/hook-access';
import { hooksByIds, hooksWithFlag } from '../store/hooks-store';
import type { HooksDeps } from './deps';
import { stateOf } from './hook-codec';

/**
 * The hooks of a project that want an event (the flag on; for branch pushes the branch filter, ActiveHookFilter).
 * The webhook-dispatcher's alone; auto-disabled state is its own business and is not applied here.
 */
export async function matchHooks(deps: HooksDeps, actor: Actor, req: hooksV1.MatchHooksRequest): Promise<number[]> {
  if (!isDispatcher(actor)) throw forbidden();
  if (!(EVENT_FLAGS as readonly string[]).includes(req.trigger)) return [];
  const candidates = await hooksWithFlag(deps.pool, req.projectId, req.trigger as EventFlag);
  return candidates.filter((h) => hookWantsRef(h, req.trigger, req.ref)).map((h) => h.id);
}

/** Where and how to deliver now, secrets opened (the dispatcher's alone). Deleted hooks are absent. */
export async function deliveryTargets(deps: HooksDeps, actor: Actor, hookIds: number[]): Promise<hooksV1.DeliveryTarget[]> {
  if (!isDispatcher(actor)) throw forbidden();
  const rows = await hooksByIds(deps.pool, [...new Set(hookIds)].slice(0, 1000));
  return rows.map((row) => {
    const s = stateOf(deps.secretBox, row);
    return {
      hookId: row.id,
      projectId: row.project_id,
      url: interpolateUrl(s.url, s.urlVariables) ?? s.url,
      displayUrl: row.url_display,
      token: s.token ?? '',
      enableSslVerification: s.enableSslVerification,
      customHeaders: Object.entries(s.customHeaders).map(([key, value]) => ({ key, value })),
      customWebhookTemplate: s.customWebhookTemplate ?? '',
    };
  });
}
