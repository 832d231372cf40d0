import type { projectsV1 } from '@glp/proto';
import { defineParams, p } from '../http/params';
import { HttpError } from '../http/errors';
import { pageResult, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { projectMemberEntity } from '../presenters/member';
import { ACCESS_LEVELS } from './group-routes';
import { expiryChange, listMembersParams, oneMemberParams, updateMemberParams } from './member-params';
import { projectSelector } from './project-routes';

/**
 * Project members API (`lib/api/members.rb`, source type project), signed-in callers only. The projects service answers
 * for the caller: a project they cannot read is 404 Project Not Found; managing members needs Maintainer (403); a
 * missing membership is 404 `{"message":"404 Not found"}`. Owner (50) passes Grape's values, as in GitLab, and is refused
 * by the service for projects (400 `{"message":{"access_level":["is not included in the list"]}}`).
 */

/** `:id` of a project, or 404 Project Not Found. */
export function requireProject(id: string | null | undefined): projectsV1.ProjectSelector {
  const selector = projectSelector(id ?? '');
  if (!selector) throw HttpError.notFound('Project');
  return { selector };
}

function listRoute(path: string, inherited: boolean): RouteDef {
  return route({
    method: 'GET', path, access: 'user',
    params: listMembersParams,
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.projects.listProjectMembers({
        project: requireProject(params.id), inherited, query: params.query ?? '', userIds: params.user_ids ?? [], page, perPage,
      });
      return pageResult(req, urls.base, { page, perPage }, res.members.map((m) => projectMemberEntity(m, urls)), Number(res.total));
    },
  });
}

function getRoute(path: string, inherited: boolean): RouteDef {
  return route({
    method: 'GET', path, access: 'user',
    params: oneMemberParams,
    handler: async ({ params, services, urls }) => {
      const { member } = await services.projects.getProjectMember({ project: requireProject(params.id), userId: params.user_id ?? 0, inherited });
      return { body: projectMemberEntity(member!, urls) };
    },
  });
}

export const projectMemberRoutes: RouteDef[] = [
  // /members/all before /members/:user_id, so "all" is not taken for a user id.
  listRoute('/projects/:id/members/all', true),
  getRoute('/projects/:id/members/all/:user_id', true),
  listRoute('/projects/:id/members', false),
  getRoute('/projects/:id/members/:user_id', false),

  route({
    method: 'POST', path: '/projects/:id/members', access: 'user',
    params: defineParams({
      id: p.string().required(),
      user_id: p.integer(),
      username: p.string(),
      access_level: p.int32().required().values(ACCESS_LEVELS),
      expires_at: p.date(),
    }).exactlyOneOf('user_id', 'username'),
    handler: async ({ params, services, urls }) => {
      const { member } = await services.projects.addProjectMember({
        project: requireProject(params.id), userId: params.user_id ?? 0, username: params.username ?? '',
        accessLevel: params.access_level ?? 0, expiresAt: params.expires_at ?? '',
      });
      return { status: 201, body: projectMemberEntity(member!, urls) };
    },
  }),

  route({
    method: 'PUT', path: '/projects/:id/members/:user_id', access: 'user',
    params: updateMemberParams,
    handler: async ({ params, services, urls }) => {
      const { member } = await services.projects.updateProjectMember({
        project: requireProject(params.id),
        userId: params.user_id ?? 0,
        accessLevel: params.access_level ?? 0,
        expiresAt: expiryChange(params.expires_at),
      });
      return { body: projectMemberEntity(member!, urls) };
    },
  }),

  route({
    method: 'DELETE', path: '/projects/:id/members/:user_id', access: 'user',
    params: oneMemberParams,
    handler: async ({ params, services }) => {
      await services.projects.removeProjectMember({ project: requireProject(params.id), userId: params.user_id ?? 0 });
      return { status: 204 };
    },
  }),
];
