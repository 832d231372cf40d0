import type { PoolClient } from '@glp/db';
import { appendEvent, buildEnvelope, EventTypes, type EventEnvelope, type PayloadType } from '@glp/events';
import { repositoryEventsV1 } from '@glp/proto';
import { systemActor } from '@glp/service-kit';

const SERVICE = systemActor('repo-admin');

/** Every repository event goes to repo-admin's topic keyed `project:<id>`, so one project's events stay ordered. */
function appendRepositoryEvent<T>(client: PoolClient, topic: string, projectId: number, type: PayloadType<T>, payload: T): Promise<void> {
  return appendEvent(client, { topic, aggregateType: 'repository', aggregateKey: `project:${projectId}`, payloadType: type, payload, actor: SERVICE }).then(() => undefined);
}

/** The reason of a failed import an event carries (git's output can be long). */
const IMPORT_ERROR_MAX_CHARS = 4096;

/** Outboxes RepositoryImportStateChanged: the copy of a fork's repository started, finished or failed. */
export function recordImportState(client: PoolClient, topic: string, projectId: number, state: repositoryEventsV1.ImportState, error = ''): Promise<void> {
  return appendRepositoryEvent(client, topic, projectId, EventTypes.RepositoryImportStateChanged,
    repositoryEventsV1.RepositoryImportStateChanged.fromPartial({ projectId, state, error: error.slice(0, IMPORT_ERROR_MAX_CHARS) }));
}

/** RepositoryChanged: what the repository now is (empty, default branch, when refs last moved). `eventId` defaults to a fresh UUID. */
export function repositoryChangedEnvelope(
  r: { projectId: number; empty: boolean; defaultBranch: string; pushedAt?: Date }, eventId?: string,
): EventEnvelope {
  return buildEnvelope({
    aggregateType: 'repository', aggregateKey: `project:${r.projectId}`, payloadType: EventTypes.RepositoryChanged, actor: SERVICE, eventId,
    payload: repositoryEventsV1.RepositoryChanged.fromPartial({ projectId: r.projectId, empty: r.empty, defaultBranch: r.defaultBranch, pushedAt: r.pushedAt }),
  });
}

/** Outboxes RepositoryChanged. */
export function recordRepositoryChanged(
  client: PoolClient, topic: string, r: { projectId: number; empty: boolean; defaultBranch: string; pushedAt?: Date },
): Promise<void> {
  return appendRepositoryEvent(client, topic, r.projectId, EventTypes.RepositoryChanged,
    repositoryEventsV1.RepositoryChanged.fromPartial({ projectId: r.projectId, empty: r.empty, defaultBranch: r.defaultBranch, pushedAt: r.pushedAt }));
}

/** Outboxes RepositoryStatisticsChanged: the sizes just measured (projects shows them as the project's statistics). */
export function recordRepositoryStatistics(
  client: PoolClient, topic: string,
  s: { projectId: number; commitCount: number; repositorySize: number; wikiSize: number; lfsObjectsSize: number; uploadsSize: number },
): Promise<void> {
  return appendRepositoryEvent(client, topic, s.projectId, EventTypes.RepositoryStatisticsChanged, repositoryEventsV1.RepositoryStatisticsChanged.fromPartial(s));
}
