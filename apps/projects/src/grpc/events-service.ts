import { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { listProjectEvents, type EventView } from '../app/project-events';

function toProtoEvent(e: EventView): projectsV1.ProjectEvent {
  const a = e.author;
  const p = e.push;
  return projectsV1.ProjectEvent.fromPartial({
    id: e.id,
    projectId: e.projectId,
    actionName: e.actionName,
    authorId: e.authorId,
    author: a ? { id: a.id, username: a.username, name: a.name, state: a.state, avatarUrl: a.avatar_url } : undefined,
    createdAt: e.createdAt,
    pushData: p
      ? {
          commitCount: p.commitCount, action: p.action, refType: p.refType, commitFrom: p.commitFrom ?? undefined, commitTo: p.commitTo ?? undefined,
          ref: p.ref ?? undefined, commitTitle: p.commitTitle ?? undefined, refCount: p.refCount ?? undefined,
        }
      : undefined,
  });
}

const page = (p: number, perPage: number) => ({ page: Math.max(1, p || 1), perPage: Math.min(100, Math.max(1, perPage || 20)) });

/** gRPC adapter of a project's events: decode, call the use case (app/), encode. */
export function eventsService(deps: ProjectsDeps): Pick<AsyncService<projectsV1.ProjectsServiceServer>, 'listProjectEvents'> {
  return {
    async listProjectEvents(req, ctx) {
      const { events, total } = await listProjectEvents(deps, ctx.actor, req.project?.selector, {
        action: req.action, targetType: req.targetType, before: req.before, after: req.after, sort: req.sort, ...page(req.page, req.perPage),
      });
      return { events: events.map(toProtoEvent), total };
    },
  };
}
