import type { PoolClient } from 'pg';
import type { EventEnvelope } from '@glp/events';
import type { projectsV1, repositoryEventsV1 } from '@glp/proto';
import { DomainError } from '@glp/service-kit';
import { buildPushPayload, visibilityLevel, type PayloadCommit, type PayloadProject } from '../domain/push-payload';
import { insertDeliveries, notifyDeliveries } from '../store/deliveries-store';
import { insertWebhookEvent } from '../store/events-store';
import { permanentlyDisabledAmong } from '../store/health-store';
import { SERVICE_ACTOR, type DispatcherDeps } from './deps';

export type PushKind = 'push' | 'tag_push';

const FLAGS: Record<PushKind, { trigger: string; hookName: string }> = {
  push: { trigger: 'push_events', hookName: 'push_hooks' },
  tag_push: { trigger: 'tag_push_events', hookName: 'tag_push_hooks' },
};

/** projects' Project → the payload's project fields. */
export function payloadProject(p: projectsV1.Project): PayloadProject {
  return {
    id: p.id, name: p.name, description: p.description ?? null, pathWithNamespace: p.namespace ? `${p.namespace.fullPath}/${p.path}` : p.path,
    namespaceName: p.namespace?.name ?? '', visibilityLevel: visibilityLevel(p.visibility), defaultBranch: p.defaultBranch || null,
    ciConfigPath: p.settings?.ciConfigPath || null, avatar: p.settings?.avatar ?? '',
  };
}

export function payloadCommits(commits: repositoryEventsV1.PushCommit[]): PayloadCommit[] {
  return commits.map((c) => ({
    id: c.id, message: c.message, title: c.title, timestamp: c.timestamp, authorName: c.authorName, authorEmail: c.authorEmail,
    added: c.added, modified: c.modified, removed: c.removed,
  }));
}

/** The project as this service sees it (undefined: it no longer exists). */
export async function findProject(deps: Pick<DispatcherDeps, 'projects'>, projectId: number): Promise<projectsV1.Project | undefined> {
  try {
    const { project } = await deps.projects.getProject({ selector: { $case: 'id', value: projectId }, withCustomAttributes: false, statistics: false }, { actor: SERVICE_ACTOR });
    return project;
  } catch (err) {
    if (err instanceof DomainError && (err.kind === 'not_found' || err.kind === 'moved')) return undefined;
    throw err;
  }
}

/** Projects read for payloads, for a moment: a burst of pushes to one project asks projects once (2 s, 1,000 entries). */
const PROJECT_TTL_MS = 2000;
const recentProjects = new Map<number, { at: number; project: projectsV1.Project }>();

async function projectForPayload(deps: Pick<DispatcherDeps, 'projects'>, projectId: number): Promise<projectsV1.Project | undefined> {
  const hit = recentProjects.get(projectId);
  if (hit && Date.now() - hit.at < PROJECT_TTL_MS) return hit.project;
  const project = await findProject(deps, projectId);
  if (recentProjects.size >= 1000) recentProjects.clear();
  if (project) recentProjects.set(projectId, { at: Date.now(), project });
  else recentProjects.delete(projectId);
  return project;
}

/**
 * A Push or TagPush event → one delivery per matching hook, in the consumer's transaction (so a redelivered event adds
 * nothing): GitLab runs no push hooks for pushes of more than push_event_hooks_limit refs; the hooks service says which
 * hooks want the event (flags, branch filter); permanently disabled hooks are skipped as GitLab skips them; the payload
 * is built once and shared by the deliveries. Answers how many deliveries were queued.
 */
export async function enqueuePush(
  deps: Pick<DispatcherDeps, 'hooks' | 'projects' | 'settings'>,
  client: PoolClient,
  envelope: EventEnvelope,
  event: repositoryEventsV1.Push | repositoryEventsV1.TagPush,
  kind: PushKind,
): Promise<number> {
  if (event.refsInPush > deps.settings.pushEventHooksLimit) return 0;
  const { trigger, hookName } = FLAGS[kind];
  const { hookIds } = await deps.hooks.matchHooks({ projectId: event.projectId, trigger, ref: event.ref }, { actor: SERVICE_ACTOR });
  if (hookIds.length === 0) return 0;
  const disabled = await permanentlyDisabledAmong(client, hookIds);
  const wanted = hookIds.filter((id) => !disabled.has(id));
  if (wanted.length === 0) return 0;
  const project = await projectForPayload(deps, event.projectId);
  if (!project) return 0;
  const pusher = event.pusher;
  const payload = buildPushPayload(
    {
      ref: event.ref, before: event.before, after: event.after, checkoutSha: event.checkoutSha,
      user: { id: pusher?.userId ?? 0, name: pusher?.name ?? '', username: pusher?.username ?? '', email: pusher?.email ?? '', avatarUrl: null },
      commits: payloadCommits(event.commits), totalCommitsCount: event.totalCommitsCount,
    },
    payloadProject(project),
    deps.settings.externalUrl,
  );
  await insertWebhookEvent(client, { eventId: envelope.eventId, projectId: event.projectId, trigger: hookName, payload, occurredAt: envelope.occurredAt ?? new Date() });
  const added = await insertDeliveries(client, envelope.eventId, event.projectId, wanted);
  if (added > 0) await notifyDeliveries(client);
  return added;
}
