import type { PoolClient } from '@glp/db';
import { appendEvent, EventTypes } from '@glp/events';
import { projectEventsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';

export async function recordProjectCreated(
  client: PoolClient,
  topic: string,
  p: { id: number; name: string; path: string; fullPath: string; namespaceId: number; creatorId: number; visibility: string; createdAt: Date },
  actor: Actor,
): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'project',
    aggregateKey: `project:${p.id}`,
    payloadType: EventTypes.ProjectCreated,
    payload: projectEventsV1.ProjectCreated.fromPartial({
      projectId: p.id, name: p.name, path: p.path, pathWithNamespace: p.fullPath, namespaceId: p.namespaceId,
      creatorId: p.creatorId, visibility: p.visibility, createdAt: p.createdAt,
    }),
    actor,
  });
}

/** Outboxes ProjectMembershipChanged (key project:<id>); access level 0 means the membership was removed. */
export async function recordProjectMembershipChanged(
  client: PoolClient,
  topic: string,
  m: { projectId: number; userId: number; accessLevel: number; expiresAt: string | null },
  actor: Actor,
): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'project',
    aggregateKey: `project:${m.projectId}`,
    payloadType: EventTypes.ProjectMembershipChanged,
    payload: projectEventsV1.ProjectMembershipChanged.fromPartial({
      projectId: m.projectId, userId: m.userId, accessLevel: m.accessLevel, expiresAt: m.expiresAt ?? '',
    }),
    actor,
  });
}
