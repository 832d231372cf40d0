import type { identityV1 } from '@glp/proto';
import { defineParams, p } from '../http/params';
import { pageResult, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { memberEntity } from '../presenters/member';
import type { UrlBuilder } from '../presenters/urls';
import { ACCESS_LEVELS, requireGroup } from './group-routes';
import { expiryChange, listMembersParams, oneMemberParams, updateMemberParams } from './member-params';

/**
 * Group members API (`lib/api/members.rb`, source type group). Signed-in callers only (`authenticate!`); the group must
 * be readable (else 404 Group Not Found); adding, changing and removing members needs the group's owner rights
 * (identity answers 403). A missing membership is GitLab's `find_by!` → `ActiveRecord::RecordNotFound` → 404
 * `{"message":"404 Not found"}`; identity's `recordNotFound()` is rendered that way (http/errors.ts).
 */

function presentMembers(members: readonly identityV1.GroupMember[], urls: UrlBuilder) {
  return members.map((m) => memberEntity(m, urls));
}

function listMembersRoute(path: string, inherited: boolean): RouteDef {
  return route({
    method: 'GET', path, access: 'user', params: listMembersParams,
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.identity.listGroupMembers({
        group: requireGroup(params.id),
        inherited,
        query: params.query ?? '',
        userIds: params.user_ids ?? [],
        page,
        perPage,
      });
      return pageResult(req, urls.base, { page, perPage }, presentMembers(res.members, urls), Number(res.total));
    },
  });
}

function getMemberRoute(path: string, inherited: boolean): RouteDef {
  return route({
    method: 'GET', path, access: 'user',
    params: oneMemberParams,
    handler: async ({ params, services, urls }) => {
      const { member } = await services.identity.getGroupMember({ group: requireGroup(params.id), userId: params.user_id ?? 0, inherited });
      return { body: memberEntity(member!, urls) };
    },
  });
}

export const groupMemberRoutes: RouteDef[] = [
  // `/members/all` before `/members/:user_id`, which would take "all" for a user id
  listMembersRoute('/groups/:id/members/all', true),
  getMemberRoute('/groups/:id/members/all/:user_id', true),
  listMembersRoute('/groups/:id/members', false),
  getMemberRoute('/groups/:id/members/:user_id', false),

  route({
    method: 'POST', path: '/groups/:id/members', access: 'user',
    params: defineParams({
      id: p.string().required(),
      user_id: p.integer(),
      username: p.string(),
      access_level: p.int32().required().values(ACCESS_LEVELS),
      expires_at: p.date(),
    })
      .mutuallyExclusive('user_id', 'username')
      .atLeastOneOf('user_id', 'username'),
    handler: async ({ params, services, urls }) => {
      const { member } = await services.identity.addGroupMember({
        group: requireGroup(params.id),
        userId: params.user_id ?? 0,
        username: params.user_id != null ? '' : (params.username ?? ''),
        accessLevel: params.access_level,
        expiresAt: params.expires_at ?? '',
      });
      return { status: 201, body: memberEntity(member!, urls) };
    },
  }),

  route({
    method: 'PUT', path: '/groups/:id/members/:user_id', access: 'user',
    params: updateMemberParams,
    handler: async ({ params, services, urls }) => {
      const { member } = await services.identity.updateGroupMember({
        group: requireGroup(params.id),
        userId: params.user_id ?? 0,
        accessLevel: params.access_level,
        expiresAt: expiryChange(params.expires_at),
      });
      return { body: memberEntity(member!, urls) };
    },
  }),

  route({
    method: 'DELETE', path: '/groups/:id/members/:user_id', access: 'user',
    params: oneMemberParams,
    handler: async ({ params, services }) => {
      await services.identity.removeGroupMember({ group: requireGroup(params.id), userId: params.user_id ?? 0 });
      return { status: 204 }; // destroy_conditionally!: 204, no body
    },
  }),
];
