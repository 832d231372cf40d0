import type { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { forkProject, linkFork, unlinkFork } from '../app/fork-project';
import { toProtoProject } from './mappers';

/** gRPC adapter of forks: fork, link and unlink. */
export function forkService(deps: ProjectsDeps): Pick<AsyncService<projectsV1.ProjectsServiceServer>, 'forkProject' | 'linkFork' | 'unlinkFork'> {
  return {
    async forkProject(req, ctx) {
      const { row, facts } = await forkProject(deps, ctx.actor, req);
      return { project: toProtoProject(row, ctx.actor, facts) };
    },
    async linkFork(req, ctx) {
      const { row, facts } = await linkFork(deps, ctx.actor, req);
      return { project: toProtoProject(row, ctx.actor, facts) };
    },
    async unlinkFork(req, ctx) {
      await unlinkFork(deps, ctx.actor, req);
      return {};
    },
  };
}
