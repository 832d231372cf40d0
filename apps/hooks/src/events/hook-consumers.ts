import type { PoolClient } from '@glp/db';
import type { hookEventsV1, projectEventsV1 } from '@glp/proto';
import { systemActor } from '@glp/service-kit';
import { applyHealth, deleteProjectHooks } from '../store/hooks-store';
import { recordHookDeleted } from './hook-events';

/** HookHealthChanged → the hook's alert_status / disabled_until, only when newer than what is stored. */
export async function onHookHealthChanged(client: PoolClient, event: hookEventsV1.HookHealthChanged): Promise<void> {
  const status = ['executable', 'temporarily_disabled', 'disabled'].includes(event.alertStatus) ? event.alertStatus : 'executable';
  await applyHealth(client, event.hookId, { alertStatus: status, disabledUntil: event.disabledUntil ?? null, version: Number(event.version) });
}

/** ProjectDeleted → the project's hooks go, each with HookDeleted (in the consumer's transaction: idempotent). */
export async function onProjectDeleted(client: PoolClient, topic: string, event: projectEventsV1.ProjectDeleted): Promise<void> {
  const ids = await deleteProjectHooks(client, event.projectId);
  for (const id of ids) await recordHookDeleted(client, topic, { id, projectId: event.projectId }, systemActor('hooks'));
}
