import type { PoolClient } from '@glp/db';
import { appendEnvelope, buildEnvelope, EventTypes, type EventEnvelope, type PayloadType } from '@glp/events';
import type { repositoryEventsV1 } from '@glp/proto';

/** Who caused the event: the pusher (a mirror update: the mirror user). */
export interface EventCause {
  id: number;
  username: string;
}

/** Push and TagPush go to repo-admin's topic keyed `project:<id>`, in order with the project's other repository events. */
function pushEventEnvelope<T>(projectId: number, type: PayloadType<T>, payload: T, cause: EventCause, eventId?: string): EventEnvelope {
  return buildEnvelope({ aggregateType: 'repository', aggregateKey: `project:${projectId}`, payloadType: type, payload, actor: cause, eventId });
}

/** Push: a branch was created, moved or deleted. `eventId` defaults to a fresh UUID. */
export function pushEnvelope(push: repositoryEventsV1.Push, cause: EventCause, eventId?: string): EventEnvelope {
  return pushEventEnvelope(push.projectId, EventTypes.Push, push, cause, eventId);
}

/** TagPush: a tag was created, moved or deleted. `eventId` defaults to a fresh UUID. */
export function tagPushEnvelope(push: repositoryEventsV1.TagPush, cause: EventCause, eventId?: string): EventEnvelope {
  return pushEventEnvelope(push.projectId, EventTypes.TagPush, push, cause, eventId);
}

/** Outboxes Push. */
export function recordPush(client: PoolClient, topic: string, push: repositoryEventsV1.Push, cause: EventCause): Promise<void> {
  return appendEnvelope(client, topic, pushEnvelope(push, cause));
}

/** Outboxes TagPush. */
export function recordTagPush(client: PoolClient, topic: string, push: repositoryEventsV1.TagPush, cause: EventCause): Promise<void> {
  return appendEnvelope(client, topic, tagPushEnvelope(push, cause));
}
