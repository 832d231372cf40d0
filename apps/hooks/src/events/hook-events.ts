import type { PoolClient } from '@glp/db';
import { appendEvent, EventTypes } from '@glp/events';
import { hookEventsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';

const key = (projectId: number) => `project:${projectId}`;

/** A hook was edited: the dispatcher resets its failure state (GitLab re-enables an edited hook). Never the token. */
export async function recordHookUpdated(client: PoolClient, topic: string, h: { id: number; projectId: number }, actor: Actor): Promise<void> {
  await appendEvent(client, {
    topic, aggregateType: 'project', aggregateKey: key(h.projectId), payloadType: EventTypes.HookUpdated,
    payload: hookEventsV1.HookUpdated.fromPartial({ hookId: h.id, projectId: h.projectId }), actor,
  });
}

/** A hook was deleted (or its project was): its pending deliveries are dropped. */
export async function recordHookDeleted(client: PoolClient, topic: string, h: { id: number; projectId: number }, actor: Actor): Promise<void> {
  await appendEvent(client, {
    topic, aggregateType: 'project', aggregateKey: key(h.projectId), payloadType: EventTypes.HookDeleted,
    payload: hookEventsV1.HookDeleted.fromPartial({ hookId: h.id, projectId: h.projectId }), actor,
  });
}
