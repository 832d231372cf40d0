import type { PoolClient } from '@glp/db';
import { appendEvent, EventTypes, type PayloadType } from '@glp/events';
import { projectEventsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';

/** Every project event goes to this service's topic keyed `project:<id>`, so one project's events stay ordered. */
function appendProjectEvent<T>(
  client: PoolClient, topic: string, projectId: number, payloadType: PayloadType<T>, payload: T, actor: Actor,
): Promise<void> {
  return appendEvent(client, { topic, aggregateType: 'project', aggregateKey: `project:${projectId}`, payloadType, payload, actor }).then(() => undefined);
}

export async function recordProjectCreated(
  client: PoolClient,
  topic: string,
  p: {
    id: number; name: string; path: string; fullPath: string; namespaceId: number; creatorId: number; visibility: string; createdAt: Date;
    defaultBranch?: string | null; initializeWithReadme?: boolean; importSource?: boolean; repositoryStorage?: string;
  },
  actor: Actor,
): Promise<void> {
  await appendProjectEvent(client, topic, p.id, EventTypes.ProjectCreated, projectEventsV1.ProjectCreated.fromPartial({
    projectId: p.id, name: p.name, path: p.path, pathWithNamespace: p.fullPath, namespaceId: p.namespaceId,
    creatorId: p.creatorId, visibility: p.visibility, createdAt: p.createdAt, defaultBranch: p.defaultBranch ?? '',
    initializeWithReadme: p.initializeWithReadme ?? false, importSource: p.importSource ?? false, repositoryStorage: p.repositoryStorage ?? '',
  }), actor);
}

/** Outboxes ProjectMembershipChanged (key project:<id>); access level 0 means the membership was removed. */
export async function recordProjectMembershipChanged(
  client: PoolClient,
  topic: string,
  m: { projectId: number; userId: number; accessLevel: number; expiresAt: string | null },
  actor: Actor,
): Promise<void> {
  await appendProjectEvent(client, topic, m.projectId, EventTypes.ProjectMembershipChanged, projectEventsV1.ProjectMembershipChanged.fromPartial({
    projectId: m.projectId, userId: m.userId, accessLevel: m.accessLevel, expiresAt: m.expiresAt ?? '',
  }), actor);
}

/** Outboxes ProjectDeleted (key project:<id>): the project is gone for good; owners of attached data clean up. */
export async function recordProjectDeleted(
  client: PoolClient, topic: string, p: { id: number; path_with_namespace: string; namespace_id: number; repository_storage?: string }, actor: Actor,
): Promise<void> {
  await appendProjectEvent(client, topic, p.id, EventTypes.ProjectDeleted, projectEventsV1.ProjectDeleted.fromPartial({ projectId: p.id, pathWithNamespace: p.path_with_namespace, namespaceId: p.namespace_id, repositoryStorage: p.repository_storage ?? '' }), actor);
}

/** Outboxes ProjectUpdated (key project:<id>): `changed` names the API attributes that changed. */
export async function recordProjectUpdated(
  client: PoolClient,
  topic: string,
  p: { id: number; pathWithNamespace: string; visibility: string; archived: boolean; changed: string[]; markedForDeletionOn?: string | null; repositoryStorage?: string },
  actor: Actor,
): Promise<void> {
  await appendProjectEvent(client, topic, p.id, EventTypes.ProjectUpdated, projectEventsV1.ProjectUpdated.fromPartial({
    projectId: p.id, pathWithNamespace: p.pathWithNamespace, visibility: p.visibility, archived: p.archived, changed: p.changed,
    markedForDeletionOn: p.markedForDeletionOn ?? '', repositoryStorage: p.repositoryStorage ?? '',
  }), actor);
}

/** Outboxes ProjectStarred (key project:<id>): the user starred (or unstarred) the project; `starCount` after it. */
export async function recordProjectStarred(
  client: PoolClient,
  topic: string,
  s: { projectId: number; userId: number; starred: boolean; starCount: number },
  actor: Actor,
): Promise<void> {
  await appendProjectEvent(client, topic, s.projectId, EventTypes.ProjectStarred, projectEventsV1.ProjectStarred.fromPartial({ projectId: s.projectId, userId: s.userId, starred: s.starred, starCount: s.starCount }), actor);
}

/** Outboxes ProjectShared (key project:<id>): the project was shared with a group. */
export async function recordProjectShared(
  client: PoolClient,
  topic: string,
  l: { projectId: number; groupId: number; groupAccess: number; expiresAt: string | null },
  actor: Actor,
): Promise<void> {
  await appendProjectEvent(client, topic, l.projectId, EventTypes.ProjectShared, projectEventsV1.ProjectShared.fromPartial({ projectId: l.projectId, groupId: l.groupId, groupAccess: l.groupAccess, expiresAt: l.expiresAt ?? '' }), actor);
}

/** Outboxes ProjectUnshared (key project:<id>): the project's share with the group was removed. */
export async function recordProjectUnshared(client: PoolClient, topic: string, l: { projectId: number; groupId: number }, actor: Actor): Promise<void> {
  await appendProjectEvent(client, topic, l.projectId, EventTypes.ProjectUnshared, projectEventsV1.ProjectUnshared.fromPartial({ projectId: l.projectId, groupId: l.groupId }), actor);
}

/**
 * Outboxes ProjectForked (key project:<id> of the fork): a new fork whose repository repo-admin copies
 * (`copyRepository`), or an existing project linked as a fork.
 */
export async function recordProjectForked(
  client: PoolClient,
  topic: string,
  f: { projectId: number; forkedFromProjectId: number; pathWithNamespace: string; forkedFromPathWithNamespace: string; copyRepository: boolean; branches: string; repositoryStorage: string },
  actor: Actor,
): Promise<void> {
  await appendProjectEvent(client, topic, f.projectId, EventTypes.ProjectForked, projectEventsV1.ProjectForked.fromPartial(f), actor);
}

/** Outboxes ProjectForkRemoved (key project:<id> of the fork) for each relation removed. */
export async function recordProjectForksRemoved(
  client: PoolClient, topic: string, relations: { project_id: number; forked_from_project_id: number }[], actor: Actor,
): Promise<void> {
  for (const r of relations) {
    await appendProjectEvent(client, topic, r.project_id, EventTypes.ProjectForkRemoved, projectEventsV1.ProjectForkRemoved.fromPartial({
      projectId: r.project_id, forkedFromProjectId: r.forked_from_project_id,
    }), actor);
  }
}
