import type { Request } from 'express';
import { projectsV1, type identityV1 } from '@glp/proto';
import { DomainError } from '@glp/service-kit';
import { defineParams, p, type InferParams } from '../http/params';
import { HttpError } from '../http/errors';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { groupDetail, groupEntity, rubyErrorsInspect } from '../presenters/group';
import { projectEntity } from '../presenters/project';
import type { UrlBuilder } from '../presenters/urls';
import type { Services } from '../clients';

/**
 * Groups API (`lib/api/groups.rb`): create, list, show, update, delete (delayed, as GitLab 18), restore, subgroups. Every call answers for the caller:
 * identity returns a group the caller cannot read as NOT_FOUND (→ 404 `{"message":"404 Group Not Found"}`).
 */

export const VISIBILITY = ['private', 'internal', 'public'] as const;
/** `Gitlab::Access.all_values` (with EE's minimal access 5 and planner 15), as GET /projects uses. */
export const ACCESS_LEVELS = [5, 10, 15, 20, 30, 40, 50] as const;
/** GitLab's plan limit `offset_pagination_limit`, enforced for listings of groups. */
const OFFSET_PAGINATION_LIMIT = 50000;

/**
 * `:id` of a group or namespace (`find_group!`, `find_namespace!`): digits → id, anything else → full path (Express has
 * decoded `%2F` already). Undefined for digits beyond any id (not found).
 */
export function groupSelector(id: string): identityV1.GroupSelector | undefined {
  if (/^\d+$/.test(id)) {
    const n = Number(id);
    return Number.isSafeInteger(n) ? { selector: { $case: 'id', value: n } } : undefined;
  }
  return { selector: { $case: 'fullPath', value: id } };
}

/** The selector for `:id`, or 404 `Group Not Found`. */
export function requireGroup(id: string | null | undefined): identityV1.GroupSelector {
  const selector = groupSelector(id ?? '');
  if (!selector) throw HttpError.notFound('Group');
  return selector;
}

/** GitLab's 405 beyond `offset_pagination_limit` (Group is one of the enforced types). */
function checkOffsetLimit(page: number, perPage: number): void {
  if (page * perPage > OFFSET_PAGINATION_LIMIT) {
    throw new HttpError(405, {
      error: `Offset pagination has a maximum allowed offset of ${OFFSET_PAGINATION_LIMIT} for requests that return objects of type Group. Remaining records can be retrieved using keyset pagination.`,
    });
  }
}

/** `params :group_list_params` (+ `visibility`, `top_level_only`) and pagination. */
const listGroupsFields = {
  ...paginationParams,
  search: p.string(),
  owned: p.boolean().default(false),
  min_access_level: p.int32().values(ACCESS_LEVELS),
  top_level_only: p.boolean(),
  skip_groups: p.arrayOf(p.integer()).commaSeparated(),
  all_available: p.boolean(),
  order_by: p.enumOf(['name', 'path', 'id', 'similarity']).default('name'),
  sort: p.enumOf(['asc', 'desc']).default('asc'),
  visibility: p.enumOf(VISIBILITY),
  statistics: p.boolean().default(false),
  with_custom_attributes: p.boolean().default(false),
};
const listGroupsParams = defineParams(listGroupsFields);

interface ListContext {
  req: Request;
  params: InferParams<typeof listGroupsFields>;
  services: Services;
  urls: UrlBuilder;
  admin: boolean;
}

/** GET /groups and GET /groups/:id/subgroups (`parentId` > 0). */
async function listGroups({ req, params, services, urls, admin }: ListContext, parentId: number) {
  const { page, perPage } = parsePagination(params);
  checkOffsetLimit(page, perPage);
  const res = await services.identity.listGroups({
    search: params.search ?? '',
    owned: params.owned ?? false,
    minAccessLevel: params.min_access_level ?? 0,
    topLevelOnly: params.top_level_only ?? false,
    skipGroups: params.skip_groups ?? [],
    // GitLab: `find_params.fetch(:all_available, current_user&.can_read_all_resources?)`
    allAvailable: params.all_available ?? admin,
    // similarity ranks matches of `search`; the contract orders by name, path or id (name is GitLab's default)
    orderBy: params.order_by === 'similarity' ? 'name' : (params.order_by ?? 'name'),
    sort: params.sort ?? 'asc',
    page,
    perPage,
    parentId,
    visibility: params.visibility ?? '',
  });
  return pageResult(req, urls.base, { page, perPage }, res.groups.map((g) => groupEntity(g, urls)), Number(res.total));
}

/** POST /groups failures: `render_api_error!("Failed to save group #{group.errors.messages}", 400)`. */
function failedToSave(err: unknown): unknown {
  if (err instanceof DomainError && err.kind === 'invalid' && err.fields && Object.keys(err.fields).length > 0) {
    return new HttpError(400, { message: `Failed to save group ${rubyErrorsInspect(err.fields)}` });
  }
  return err;
}

export const groupRoutes: RouteDef[] = [
  route({
    method: 'POST', path: '/groups', access: 'user',
    params: defineParams({
      name: p.string().required(),
      path: p.string().required(),
      description: p.string(),
      visibility: p.enumOf(VISIBILITY),
      parent_id: p.integer(),
      request_access_enabled: p.boolean(),
    }),
    handler: async ({ params, services, urls }) => {
      try {
        const { group } = await services.identity.createGroup({
          name: params.name ?? '',
          path: params.path ?? '',
          description: params.description ?? '',
          visibility: params.visibility ?? '',
          requestAccessEnabled: params.request_access_enabled ?? undefined,
          parentId: params.parent_id ?? 0,
        });
        return { status: 201, body: groupDetail(group!, urls) };
      } catch (err) {
        throw failedToSave(err);
      }
    },
  }),

  route({
    method: 'GET', path: '/groups', access: 'public', params: listGroupsParams,
    handler: async ({ req, params, actor, services, urls }) => listGroups({ req, params, services, urls, admin: actor.admin }, 0),
  }),

  route({
    method: 'GET', path: '/groups/:id', access: 'public',
    params: defineParams({ id: p.string().required(), with_projects: p.boolean().default(true), with_custom_attributes: p.boolean() }),
    handler: async ({ params, actor, services, urls }) => {
      const { group } = await services.identity.getGroup({ group: requireGroup(params.id) });
      if (!params.with_projects) return { body: groupEntity(group!, urls) };
      // GroupDetail: the group's own projects and the projects shared with it that the caller may read (projects
      // answers for the caller), 100 at most each.
      const listed = (filter: Partial<projectsV1.ListProjectsRequest>) => services.projects.listProjects(
        projectsV1.ListProjectsRequest.fromPartial({ ...filter, page: 1, perPage: 100, orderBy: 'id', sort: 'asc', skipCount: true }),
      );
      const [own, shared] = await Promise.all([listed({ namespaceId: group!.id }), listed({ sharedWithGroupId: group!.id })]);
      const viewer = { authenticated: actor.kind === 'user', admin: actor.admin };
      return {
        body: groupDetail(group!, urls, own.projects.map((p) => projectEntity(p, urls, viewer)), shared.projects.map((p) => projectEntity(p, urls, viewer))),
      };
    },
  }),

  route({
    method: 'PUT', path: '/groups/:id', access: 'user',
    params: defineParams({
      id: p.string().required(),
      name: p.string(),
      path: p.string(),
      description: p.string(),
      visibility: p.enumOf(VISIBILITY),
      request_access_enabled: p.boolean(),
    }).atLeastOneOf('name', 'path', 'description', 'visibility', 'request_access_enabled'),
    handler: async ({ params, services, urls }) => {
      const { group } = await services.identity.updateGroup({
        group: requireGroup(params.id),
        name: params.name ?? undefined,
        path: params.path ?? undefined,
        description: params.description ?? undefined,
        visibility: params.visibility ?? undefined,
        requestAccessEnabled: params.request_access_enabled ?? undefined,
      });
      return { body: groupDetail(group!, urls) };
    },
  }),

  route({
    method: 'DELETE', path: '/groups/:id', access: 'user',
    params: defineParams({ id: p.string().required(), permanently_remove: p.boolean(), full_path: p.string() }),
    handler: async ({ params, services }) => {
      // GitLab 18: marks the group for deletion; `permanently_remove` + the exact `full_path` removes a marked group.
      await services.identity.deleteGroup({
        group: requireGroup(params.id), permanentlyRemove: params.permanently_remove ?? false, fullPath: params.full_path ?? '',
      });
      return { status: 202, body: { message: '202 Accepted' } }; // `accepted!`: the removal runs asynchronously in GitLab
    },
  }),

  route({
    method: 'POST', path: '/groups/:id/restore', access: 'user', params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services, urls }) => {
      const { group } = await services.identity.restoreGroup({ group: requireGroup(params.id) });
      return { status: 201, body: groupDetail(group!, urls) };
    },
  }),

  route({
    method: 'GET', path: '/groups/:id/subgroups', access: 'public',
    params: listGroupsParams.extend({ id: p.string().required() }),
    handler: async ({ req, params, actor, services, urls }) => {
      const { group } = await services.identity.getGroup({ group: requireGroup(params.id) }); // find_group!: 404 first
      return listGroups({ req, params, services, urls, admin: actor.admin }, group!.id);
    },
  }),
];
