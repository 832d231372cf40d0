import type { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { setProjectAvatar } from '../app/project-avatar';
import { singleProjectExtras } from '../app/project-extras';
import { toProtoProject } from './mappers';

/** gRPC adapter of the project avatar (the last step of an edit or a create with a multipart `avatar`). */
export function avatarService(deps: ProjectsDeps): Pick<AsyncService<projectsV1.ProjectsServiceServer>, 'setProjectAvatar'> {
  return {
    async setProjectAvatar(req, ctx) {
      const { row, facts, access } = await setProjectAvatar(deps, ctx.actor, req.project?.selector, req.avatar);
      // Answered like an edit (`user_can_admin_project`: the runners token for those who administer the project).
      return { project: toProtoProject(row, ctx.actor, facts, await singleProjectExtras(deps, ctx.actor, { row, access })) };
    },
  };
}
