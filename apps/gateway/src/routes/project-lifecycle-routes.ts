import { defineParams, p } from '../http/params';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { projectEntity } from '../presenters/project';
import { starrerEntity } from '../presenters/starrer';
import { requireProject } from './project-member-routes';

/**
 * Star, unstar, starrers, archive and unarchive (`lib/api/projects.rb`). Star and unstar act for the caller (any
 * signed-in user who may read the project): 201 with the `Project` entity, or an empty 304 when already starred / not
 * starred. Archive and unarchive need Owner or administrator (403; a hidden project is 404) and are idempotent (201
 * `Project` either way). Starrers are public like GET /projects/:id (anonymous callers list those of a public project),
 * as `UserStarsProject`, paginated with GitLab's headers. A project the caller cannot read is 404 Project Not Found.
 */

const idParam = defineParams({ id: p.string().required() });

function starRoute(path: string, method: 'starProject' | 'unstarProject'): RouteDef {
  return route({
    method: 'POST', path, access: 'user', params: idParam,
    handler: async ({ params, actor, services, urls }) => {
      const { project } = await services.projects[method]({ project: requireProject(params.id) });
      return { status: 201, body: projectEntity(project!, urls, { authenticated: true, admin: actor.admin }) };
    },
  });
}

function archiveRoute(path: string, archived: boolean): RouteDef {
  return route({
    method: 'POST', path, access: 'user', params: idParam,
    handler: async ({ params, actor, services, urls }) => {
      const { project } = await services.projects.archiveProject({ project: requireProject(params.id), archived });
      return { status: 201, body: projectEntity(project!, urls, { authenticated: true, admin: actor.admin }) };
    },
  });
}

export const projectLifecycleRoutes: RouteDef[] = [
  starRoute('/projects/:id/star', 'starProject'),
  starRoute('/projects/:id/unstar', 'unstarProject'),

  route({
    method: 'GET', path: '/projects/:id/starrers', access: 'public',
    params: defineParams({ id: p.string().required(), search: p.string(), ...paginationParams }),
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.projects.listStarrers({ project: requireProject(params.id), search: params.search ?? '', page, perPage });
      return pageResult(req, urls.base, { page, perPage }, res.starrers.map((s) => starrerEntity(s, urls)), Number(res.total));
    },
  }),

  archiveRoute('/projects/:id/archive', true),
  archiveRoute('/projects/:id/unarchive', false),
];
