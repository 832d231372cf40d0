import type { projectsV1 } from '@glp/proto';
import { DomainError } from '@glp/service-kit';
import { defineParams, p } from '../http/params';
import { HttpError } from '../http/errors';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { memberUserBasic } from '../presenters/member';
import type { UrlBuilder } from '../presenters/urls';
import { ACCESS_LEVELS } from './group-routes';
import { requireProject } from './project-member-routes';

/**
 * Sharing a project with groups, its users and groups, and member import (`lib/api/projects.rb`; spec 4.3, 4.6;
 * reference 10). The projects service decides for the caller: an unreadable project is 404 Project Not Found; sharing,
 * unsharing and importing need Maintainer (403).
 */

/**
 * What the projects service's NOT_FOUND carries when the group to share with is missing or hidden from the caller
 * (`apps/projects/src/app/sharing.ts` SHARE_GROUP_NOT_FOUND): GitLab's `error('Not Found', 404)` → `{"message":"Not Found"}`.
 */
const SHARE_GROUP_NOT_FOUND = 'share-group';

/** `Entities::ProjectGroupLink`: id, project_id, group_id, group_access, expires_at (YYYY-MM-DD or null). ONE literal. */
function projectGroupLinkEntity(l: projectsV1.ProjectGroupLink) {
  return {
    id: l.id,
    project_id: l.projectId,
    group_id: l.groupId,
    group_access: l.groupAccess,
    expires_at: l.expiresAt || null,
  };
}

/** `Entities::PublicGroupDetails` (BasicGroupDetails + avatar_url, full_name, full_path). ONE literal. */
function projectGroupEntity(g: projectsV1.ProjectGroup, urls: UrlBuilder) {
  return {
    id: g.id,
    web_url: urls.group(g.fullPath),
    name: g.name,
    avatar_url: null,
    full_name: g.fullName,
    full_path: g.fullPath,
  };
}

export const projectSharingRoutes: RouteDef[] = [
  route({
    method: 'POST', path: '/projects/:id/share', access: 'user',
    params: defineParams({
      id: p.string().required(),
      group_id: p.integer().required(),
      group_access: p.int32().required().values(ACCESS_LEVELS),
      expires_at: p.date(),
    }),
    handler: async ({ params, services }) => {
      try {
        const { link } = await services.projects.shareProject({
          project: requireProject(params.id), groupId: params.group_id ?? 0, groupAccess: params.group_access ?? 0, expiresAt: params.expires_at ?? '',
        });
        return { status: 201, body: projectGroupLinkEntity(link!) };
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'not_found' && err.message === SHARE_GROUP_NOT_FOUND) throw new HttpError(404, { message: 'Not Found' });
        throw err;
      }
    },
  }),

  route({
    method: 'DELETE', path: '/projects/:id/share/:group_id', access: 'user',
    params: defineParams({ id: p.string().required(), group_id: p.integer().required() }),
    handler: async ({ params, services }) => {
      await services.projects.unshareProject({ project: requireProject(params.id), groupId: params.group_id ?? 0 });
      return { status: 204 };
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/users', access: 'public',
    params: defineParams({ id: p.string().required(), ...paginationParams, search: p.string(), skip_users: p.arrayOf(p.integer()).commaSeparated() }),
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.projects.listProjectUsers({
        project: requireProject(params.id), search: params.search ?? '', skipUsers: params.skip_users ?? [], page, perPage,
      });
      return pageResult(req, urls.base, { page, perPage }, res.users.map((u) => memberUserBasic(u, urls)), Number(res.total));
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/groups', access: 'public',
    params: defineParams({
      id: p.string().required(),
      ...paginationParams,
      search: p.string(),
      skip_groups: p.arrayOf(p.integer()).commaSeparated(),
      with_shared: p.boolean().default(false),
      shared_visible_only: p.boolean().default(false),
      shared_min_access_level: p.int32().values(ACCESS_LEVELS),
    }),
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.projects.listProjectGroups({
        project: requireProject(params.id), search: params.search ?? '', skipGroups: params.skip_groups ?? [], withShared: params.with_shared ?? false,
        sharedVisibleOnly: params.shared_visible_only ?? false, sharedMinAccessLevel: params.shared_min_access_level ?? 0, page, perPage,
      });
      return pageResult(req, urls.base, { page, perPage }, res.groups.map((g) => projectGroupEntity(g, urls)), Number(res.total));
    },
  }),

  /**
   * GitLab answers 200 `{"status":"success"}`, or 200 `{"status":"error","message":{"<username>":"<errors>"},
   * "total_members_count":N}` when some members could not be imported (its documented answers), or, when the import
   * did not complete (nothing imported), 422 `{"message":…,"reason":…}` (`render_structured_api_error!`).
   */
  route({
    method: 'POST', path: '/projects/:id/import_project_members/:project_id', access: 'user',
    params: defineParams({ id: p.string().required(), project_id: p.string().required() }),
    handler: async ({ params, services }) => {
      const res = await services.projects.importProjectMembers({ project: requireProject(params.id), source: requireProject(params.project_id) });
      if (res.status === 'success') return { status: 200, body: { status: 'success' } };
      if (res.status === 'failed') return { status: 422, body: { message: res.message, reason: res.reason } };
      return { status: 200, body: { status: res.status, message: res.errors, total_members_count: res.totalMembersCount } };
    },
  }),
];
