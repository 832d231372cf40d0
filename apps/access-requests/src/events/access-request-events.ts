import type { PoolClient } from '@glp/db';
import { appendEvent, EventTypes } from '@glp/events';
import { accessRequestEventsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';
import type { SourceKind } from '../domain/access-request-rules';

const key = (kind: SourceKind, id: number) => `${kind}:${id}`;

export async function recordAccessRequested(client: PoolClient, topic: string, r: { kind: SourceKind; sourceId: number; userId: number; requestedAt: Date }, actor: Actor): Promise<void> {
  await appendEvent(client, {
    topic, aggregateType: r.kind, aggregateKey: key(r.kind, r.sourceId), payloadType: EventTypes.AccessRequested,
    payload: accessRequestEventsV1.AccessRequested.fromPartial({ sourceKind: r.kind, sourceId: r.sourceId, userId: r.userId, requestedAt: r.requestedAt }),
    actor,
  });
}

export async function recordAccessRequestApproved(
  client: PoolClient, topic: string, r: { kind: SourceKind; sourceId: number; userId: number; level: number; approvedById: number }, actor: Actor,
): Promise<void> {
  await appendEvent(client, {
    topic, aggregateType: r.kind, aggregateKey: key(r.kind, r.sourceId), payloadType: EventTypes.AccessRequestApproved,
    payload: accessRequestEventsV1.AccessRequestApproved.fromPartial({ sourceKind: r.kind, sourceId: r.sourceId, userId: r.userId, accessLevel: r.level, approvedById: r.approvedById }),
    actor,
  });
}

export async function recordAccessRequestDenied(client: PoolClient, topic: string, r: { kind: SourceKind; sourceId: number; userId: number; deniedById: number }, actor: Actor): Promise<void> {
  await appendEvent(client, {
    topic, aggregateType: r.kind, aggregateKey: key(r.kind, r.sourceId), payloadType: EventTypes.AccessRequestDenied,
    payload: accessRequestEventsV1.AccessRequestDenied.fromPartial({ sourceKind: r.kind, sourceId: r.sourceId, userId: r.userId, deniedById: r.deniedById }),
    actor,
  });
}
