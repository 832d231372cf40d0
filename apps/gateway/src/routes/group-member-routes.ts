import type { identityV1 } from '@glp/proto';
import { DomainError, systemActor } from '@glp/service-kit';
import type { Services } from '../clients';
import { defineParams, p } from '../http/params';
import { HttpError } from '../http/errors';
import { paginationHeaders, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { memberEntity } from '../presenters/member';
import type { UrlBuilder } from '../presenters/urls';
import { ACCESS_LEVELS, requireGroup } from './group-routes';

/**
 * Group members API (`lib/api/members.rb`, source type group). Signed-in callers only (`authenticate!`); the group must
 * be readable (else 404 Group Not Found); adding, changing and removing members needs the group's owner rights
 * (identity answers 403). A missing membership is GitLab's `find_by!` → `ActiveRecord::RecordNotFound` → 404
 * `{"message":"404 Not found"}`; identity's `not_found('Member')` is rendered that way.
 */

/** identity's missing membership → GitLab's RecordNotFound body; anything else unchanged. */
function memberNotFound(err: unknown): unknown {
  if (err instanceof DomainError && err.kind === 'not_found' && err.message.toLowerCase() === 'member') return HttpError.recordNotFound();
  return err;
}

async function orRecordNotFound<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw memberNotFound(err);
  }
}

/**
 * The users that added these members (`created_by`), read once per distinct id. A creator that cannot be read
 * (removed since) is left out, like Grape's `expose_nil: false`.
 */
async function creatorsOf(members: readonly identityV1.GroupMember[], services: Services): Promise<Map<number, identityV1.User>> {
  const ids = [...new Set(members.map((m) => m.createdById).filter((id) => id > 0))];
  const found = new Map<number, identityV1.User>();
  await Promise.all(
    ids.map(async (id) => {
      try {
        const { user } = await services.identity.getUser({ selector: { $case: 'id', value: id } }, { actor: systemActor('gateway') });
        if (user) found.set(id, user);
      } catch {
        // unknown creator: no created_by
      }
    }),
  );
  return found;
}

async function presentMembers(members: readonly identityV1.GroupMember[], services: Services, urls: UrlBuilder) {
  const creators = await creatorsOf(members, services);
  return members.map((m) => memberEntity(m, urls, creators.get(m.createdById)));
}

async function presentMember(member: identityV1.GroupMember, services: Services, urls: UrlBuilder) {
  return (await presentMembers([member], services, urls))[0];
}

const listMembersParams = defineParams({
  id: p.string().required(),
  ...paginationParams,
  query: p.string(),
  user_ids: p.arrayOf(p.integer()),
});

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
      return {
        body: await presentMembers(res.members, services, urls),
        headers: paginationHeaders({
          requestUrl: new URL(req.originalUrl, urls.base),
          page,
          perPage,
          total: res.total >= 0 ? res.total : undefined,
          hasNextPage: res.members.length === perPage,
          itemCount: res.members.length,
        }),
      };
    },
  });
}

function getMemberRoute(path: string, inherited: boolean): RouteDef {
  return route({
    method: 'GET', path, access: 'user',
    params: defineParams({ id: p.string().required(), user_id: p.integer().required() }),
    handler: async ({ params, services, urls }) => {
      const { member } = await orRecordNotFound(
        services.identity.getGroupMember({ group: requireGroup(params.id), userId: params.user_id ?? 0, inherited }),
      );
      return { body: await presentMember(member!, services, urls) };
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
      return { status: 201, body: await presentMember(member!, services, urls) };
    },
  }),

  route({
    method: 'PUT', path: '/groups/:id/members/:user_id', access: 'user',
    params: defineParams({
      id: p.string().required(),
      user_id: p.integer().required(),
      access_level: p.int32().required().values(ACCESS_LEVELS),
      expires_at: p.date(),
    }),
    handler: async ({ params, services, urls }) => {
      const { member } = await orRecordNotFound(
        services.identity.updateGroupMember({
          group: requireGroup(params.id),
          userId: params.user_id ?? 0,
          accessLevel: params.access_level,
          // absent: unchanged; sent empty: removed (Grape coerces "" to nil and the update clears it)
          expiresAt: params.expires_at === undefined ? undefined : (params.expires_at ?? 'none'),
        }),
      );
      return { body: await presentMember(member!, services, urls) };
    },
  }),

  route({
    method: 'DELETE', path: '/groups/:id/members/:user_id', access: 'user',
    params: defineParams({ id: p.string().required(), user_id: p.integer().required() }),
    handler: async ({ params, services }) => {
      await orRecordNotFound(services.identity.removeGroupMember({ group: requireGroup(params.id), userId: params.user_id ?? 0 }));
      return { status: 204 }; // destroy_conditionally!: 204, no body
    },
  }),
];
