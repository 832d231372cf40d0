import type { PoolClient } from 'pg';
import { appendEvent, EventTypes } from '@glp/events';
import { alertStatus, type HookHealth } from '../domain/auto-disable';

/** HookHealthChanged (topic gitlab.webhook_dispatcher.events, key project:<id>): what the hook shows as alert_status. */
export async function appendHookHealthChanged(
  client: PoolClient,
  topic: string,
  e: { hookId: number; projectId: number; health: HookHealth; version: number; now: Date },
): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'hook',
    aggregateKey: `project:${e.projectId}`,
    payloadType: EventTypes.HookHealthChanged,
    actor: { id: 0, username: 'webhook-dispatcher' },
    payload: {
      hookId: e.hookId,
      projectId: e.projectId,
      alertStatus: alertStatus(e.health, e.now),
      disabledUntil: e.health.disabledUntil ?? undefined,
      recentFailures: e.health.recentFailures,
      version: e.version,
    },
  });
}
