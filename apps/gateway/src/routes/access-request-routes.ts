import { accessRequestsV1 } from '@glp/proto';
import { defineParams, p } from '../http/params';
import { HttpError } from '../http/errors';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { accessRequesterEntity, approvedMemberEntity } from '../presenters/access-request';
import { groupSelector } from './group-routes';
import { projectSelector } from './project-routes';

/**
 * Access requests (`lib/api/access_requests.rb`, spec 4.1), the same four routes under /groups/:id and /projects/:id,
 * signed-in callers only. The access-requests service answers for the caller: a hidden source is 404 Group/Project Not
 * Found, listing/approving needs a project Maintainer or group Owner (403), a missing request is 404 Not found.
 */

type SourceType = 'groups' | 'projects';

function source(type: SourceType, id: string | null | undefined): accessRequestsV1.Source {
  if (type === 'groups') {
    const sel = groupSelector(id ?? '')?.selector;
    if (!sel) throw HttpError.notFound('Group');
    return { kind: accessRequestsV1.SourceKind.SOURCE_KIND_GROUP, selector: sel };
  }
  const sel = projectSelector(id ?? '');
  if (!sel) throw HttpError.notFound('Project');
  return { kind: accessRequestsV1.SourceKind.SOURCE_KIND_PROJECT, selector: sel };
}

function routesFor(type: SourceType): RouteDef[] {
  const base = `/${type}/:id/access_requests`;
  return [
    route({
      method: 'GET', path: base, access: 'user', params: defineParams({ id: p.string().required(), ...paginationParams }),
      handler: async ({ req, params, services, urls }) => {
        const { page, perPage } = parsePagination(params);
        const res = await services.accessRequests.listAccessRequests({ source: source(type, params.id), page, perPage });
        return pageResult(req, urls.base, { page, perPage }, res.requests.map((r) => accessRequesterEntity(r, urls)), Number(res.total));
      },
    }),
    route({
      method: 'POST', path: base, access: 'user', params: defineParams({ id: p.string().required() }),
      handler: async ({ params, services, urls }) => {
        const { request } = await services.accessRequests.requestAccess({ source: source(type, params.id) });
        return { status: 201, body: accessRequesterEntity(request!, urls) };
      },
    }),
    route({
      method: 'PUT', path: `${base}/:user_id/approve`, access: 'user',
      // access_level from the query or the body (params are merged); GitLab's default is Developer (30).
      params: defineParams({ id: p.string().required(), user_id: p.integer().required(), access_level: p.int32().default(30) }),
      handler: async ({ params, services, urls }) => {
        const { member } = await services.accessRequests.approveAccessRequest({
          source: source(type, params.id), userId: params.user_id ?? 0, accessLevel: params.access_level ?? 30,
        });
        return { status: 201, body: approvedMemberEntity(member!, urls) };
      },
    }),
    route({
      method: 'DELETE', path: `${base}/:user_id`, access: 'user',
      params: defineParams({ id: p.string().required(), user_id: p.integer().required() }),
      handler: async ({ params, services }) => {
        await services.accessRequests.denyAccessRequest({ source: source(type, params.id), userId: params.user_id ?? 0 });
        return { status: 204 };
      },
    }),
  ];
}

export const accessRequestRoutes: RouteDef[] = [...routesFor('groups'), ...routesFor('projects')];
