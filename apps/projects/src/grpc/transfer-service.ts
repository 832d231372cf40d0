import type { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { transferProject } from '../app/transfer-project';
import { toProtoProject } from './mappers';

/** gRPC adapter of project transfer. */
export function transferService(deps: ProjectsDeps): Pick<AsyncService<projectsV1.ProjectsServiceServer>, 'transferProject'> {
  return {
    async transferProject(req, ctx) {
      const { row, facts } = await transferProject(deps, ctx.actor, req);
      return { project: toProtoProject(row, ctx.actor, facts) };
    },
  };
}
