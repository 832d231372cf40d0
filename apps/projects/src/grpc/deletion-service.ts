import type { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import { deleteProject, restoreProject, type DeletionDeps } from '../app/delete-project';
import { toProtoProject } from './mappers';

/** gRPC adapters of project deletion and restore. */
export function deletionService(deps: DeletionDeps): Pick<AsyncService<projectsV1.ProjectsServiceServer>, 'deleteProject' | 'restoreProject'> {
  return {
    async deleteProject(req, ctx) {
      return deleteProject(deps, ctx.actor, req.project?.selector, { permanentlyRemove: req.permanentlyRemove, fullPath: req.fullPath });
    },
    async restoreProject(req, ctx) {
      const { row, facts } = await restoreProject(deps, ctx.actor, req.project?.selector);
      return { project: toProtoProject(row, ctx.actor, facts) };
    },
  };
}
