import { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import { setArchived } from '../app/archive';
import type { ProjectsDeps } from '../app/deps';
import { listStarrers, starProject, unstarProject, type StarrerView } from '../app/stars';
import { toProtoProject } from './mappers';

function toProtoStarrer(s: StarrerView): projectsV1.Starrer {
  return projectsV1.Starrer.fromPartial({
    user: { id: s.user.id, username: s.user.username, name: s.user.name, state: s.user.state, avatarUrl: s.user.avatar_url },
    starredSince: s.starredSince,
  });
}

const page = (p: number, perPage: number) => ({ page: Math.max(1, p || 1), perPage: Math.min(100, Math.max(1, perPage || 20)) });

/** gRPC adapters of starring and archiving: decode, call the use case (app/), encode. */
export function lifecycleService(
  deps: ProjectsDeps,
): Pick<AsyncService<projectsV1.ProjectsServiceServer>, 'starProject' | 'unstarProject' | 'listStarrers' | 'archiveProject'> {
  return {
    async starProject(req, ctx) {
      const { row, facts } = await starProject(deps, ctx.actor, req.project?.selector);
      return { project: toProtoProject(row, ctx.actor, facts) };
    },

    async unstarProject(req, ctx) {
      const { row, facts } = await unstarProject(deps, ctx.actor, req.project?.selector);
      return { project: toProtoProject(row, ctx.actor, facts) };
    },

    async listStarrers(req, ctx) {
      const { starrers, total } = await listStarrers(deps, ctx.actor, req.project?.selector, { search: req.search, ...page(req.page, req.perPage) });
      return { starrers: starrers.map(toProtoStarrer), total };
    },

    async archiveProject(req, ctx) {
      const { row, facts } = await setArchived(deps, ctx.actor, req.project?.selector, req.archived);
      return { project: toProtoProject(row, ctx.actor, facts) };
    },
  };
}
