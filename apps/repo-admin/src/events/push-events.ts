import type { PoolClient } from '@glp/db';
import { appendEvent, EventTypes, type PayloadType } from '@glp/events';
import type { repositoryEventsV1 } from '@glp/proto';

/** Who caused the event: the pusher (a mirror update: the mirror user). */
export interface EventCause {
  id: number;
  username: string;
}

/** Push and TagPush go to repo-admin's topic keyed `project:<id>`, in order with the project's other repository events. */
function appendPushEvent<T>(client: PoolClient, topic: string, projectId: number, type: PayloadType<T>, payload: T, cause: EventCause): Promise<void> {
  return appendEvent(client, { topic, aggregateType: 'repository', aggregateKey: `project:${projectId}`, payloadType: type, payload, actor: cause }).then(() => undefined);
}

/** Outboxes Push: a branch was created, moved or deleted. */
export function recordPush(client: PoolClient, topic: string, push: repositoryEventsV1.Push, cause: EventCause): Promise<void> {
  return appendPushEvent(client, topic, push.projectId, EventTypes.Push, push, cause);
}

/** Outboxes TagPush: a tag was created, moved or deleted. */
export function recordTagPush(client: PoolClient, topic: string, push: repositoryEventsV1.TagPush, cause: EventCause): Promise<void> {
  return appendPushEvent(client, topic, push.projectId, EventTypes.TagPush, push, cause);
}
