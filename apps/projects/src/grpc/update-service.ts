import type { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { updateProject } from '../app/update-project';
import { updatePullMirror } from '../app/update-pull-mirror';
import { singleProjectExtras } from '../app/project-extras';
import type { ProjectEdit } from '../domain/project-edit';
import { explicitSettings } from '../domain/project-settings';
import { toProtoProject, visibilityFromProto } from './mappers';

/** The request as an edit: unset optionals and VISIBILITY_UNSPECIFIED leave an attribute as it is; topics only with set_topics. */
function editOf(req: projectsV1.UpdateProjectRequest): ProjectEdit {
  return {
    name: req.name,
    path: req.path,
    description: req.description,
    visibility: visibilityFromProto(req.visibility),
    defaultBranch: req.defaultBranch,
    topics: req.setTopics ? req.topics : undefined,
    settings: explicitSettings(req.settings),
    importUrl: req.importUrl,
    mirror: req.mirror,
  };
}

/** gRPC adapter of project edits (PUT /projects/:id, PUT /projects/:id/mirror/pull). */
export function updateService(deps: ProjectsDeps): Pick<AsyncService<projectsV1.ProjectsServiceServer>, 'updateProject' | 'updatePullMirror'> {
  return {
    async updateProject(req, ctx) {
      const { row, facts, access } = await updateProject(deps, ctx.actor, req.project?.selector, editOf(req), req.avatar);
      // GitLab presents an edit with `user_can_admin_project`: the runners token for those who administer the project.
      return { project: toProtoProject(row, ctx.actor, facts, await singleProjectExtras(deps, ctx.actor, { row, access })) };
    },
    async updatePullMirror(req, ctx) {
      const { row, facts } = await updatePullMirror(deps, ctx.actor, req.project?.selector, {
        enabled: req.enabled, url: req.url, authUser: req.authUser, authPassword: req.authPassword, settings: req.settings,
      });
      return { project: toProtoProject(row, ctx.actor, facts) };
    },
  };
}
