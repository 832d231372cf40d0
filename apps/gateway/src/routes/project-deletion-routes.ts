import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { projectEntity } from '../presenters/project';
import { requireProject } from './project-member-routes';

/**
 * Deleting and restoring projects (spec 3, 4.5; reference 8): Owners and administrators. DELETE marks the project for
 * deletion (GitLab 18: removed after the instance's `deletion_adjourned_period`) and answers 202
 * `{"message":"202 Accepted"}`; `permanently_remove=true` with the exact `full_path` removes a marked project at once.
 */
export const projectDeletionRoutes: RouteDef[] = [
  route({
    method: 'DELETE', path: '/projects/:id', access: 'user',
    params: defineParams({ id: p.string().required(), permanently_remove: p.boolean(), full_path: p.string() }),
    handler: async ({ params, services }) => {
      await services.projects.deleteProject({
        project: requireProject(params.id), permanentlyRemove: params.permanently_remove ?? false, fullPath: params.full_path ?? '',
      });
      return { status: 202, body: { message: '202 Accepted' } };
    },
  }),

  route({
    method: 'POST', path: '/projects/:id/restore', access: 'user', params: defineParams({ id: p.string().required() }),
    handler: async ({ params, actor, services, urls }) => {
      const { project } = await services.projects.restoreProject({ project: requireProject(params.id) });
      // GitLab presents Entities::Project here (no permissions block, which only GET /projects/:id adds).
      return { status: 201, body: projectEntity(project!, urls, { authenticated: true, admin: actor.admin }) };
    },
  }),
];
