import { withTransaction } from '@glp/db';
import type { hooksV1 } from '@glp/proto';
import { recordNotFound, unprocessable } from '@glp/service-kit';
import { executable } from '../domain/auto-disable';
import { parseStatusFilter } from '../domain/log-status-filter';
import { getWebhookEvent } from '../store/events-store';
import { readHealth } from '../store/health-store';
import { getLog, listRecentLogs, type LogRow } from '../store/logs-store';
import { logUrl, outcomeOf, performAttempt, recordAttempt } from './attempt';
import type { DispatcherDeps } from './deps';
import { deliveriesTotal } from './metrics';
import { targetOf } from './test-hook';

export const URL_CHANGED = 'The hook URL has changed, and this log entry cannot be retried';

export function hookEventOf(l: LogRow): hooksV1.HookEvent {
  return {
    id: l.id, url: l.url, trigger: l.trigger, requestHeadersJson: JSON.stringify(l.requestHeaders), requestDataJson: JSON.stringify(l.requestData ?? {}),
    responseHeadersJson: JSON.stringify(l.responseHeaders), responseBody: l.responseBody, executionDuration: l.executionDuration, responseStatus: l.responseStatus,
    createdAt: l.createdAt,
  };
}

/** GET /projects/:id/hooks/:hook_id/events: the last 7 days, newest first, filtered by status, paginated. */
export async function listDeliveries(
  deps: Pick<DispatcherDeps, 'pool' | 'settings'>,
  req: { hookId: number; statuses: string[]; page: number; perPage: number },
): Promise<{ events: hooksV1.HookEvent[]; total: number }> {
  const perPage = Math.min(Math.max(req.perPage || 20, 1), 100);
  const page = Math.max(req.page || 1, 1);
  const { rows, total } = await listRecentLogs(deps.pool, req.hookId, parseStatusFilter(req.statuses), { limit: perPage, offset: (page - 1) * perPage }, deps.settings.logRetentionDays);
  return { events: rows.map(hookEventOf), total };
}

/**
 * POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend (GitLab's `WebHooks::Events::ResendService`): the logged
 * event again, now, with its Idempotency-Key; refused when the hook's URL changed since; not forced (a disabled hook
 * answers "Hook disabled", as `WebHookService#execute`).
 */
export async function resendDelivery(deps: DispatcherDeps, req: { hookId: number; hookLogId: number }): Promise<hooksV1.DeliveryOutcome> {
  const log = await getLog(deps.pool, req.hookId, req.hookLogId);
  if (!log) throw recordNotFound();
  const target = await targetOf(deps, req.hookId);
  if (log.url !== logUrl(target.displayUrl)) throw unprocessable(URL_CHANGED);
  if (!executable(await readHealth(deps.pool, req.hookId), new Date())) return { ok: false, status: 0, message: 'Hook disabled' };
  const event = await getWebhookEvent(deps.pool, log.eventId);
  const attempt = await performAttempt(deps, target, {
    eventId: log.eventId, hookName: log.trigger, payload: event?.payload ?? log.requestData, idempotencyKey: log.idempotencyKey, deliveryId: log.deliveryId,
  });
  await withTransaction(deps.pool, (client) => recordAttempt(client, deps, target.projectId, attempt));
  deliveriesTotal.inc({ outcome: attempt.ok ? 'success' : 'failure' });
  return outcomeOf(attempt);
}
