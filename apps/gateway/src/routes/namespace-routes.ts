import { defineParams, p } from '../http/params';
import { HttpError } from '../http/errors';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { namespaceEntity } from '../presenters/namespace';
import { groupSelector } from './group-routes';

/**
 * Namespaces API (`lib/api/namespaces.rb`), signed-in callers only. Administrators see every namespace, others their
 * personal namespace and the groups they belong to; a namespace the caller cannot read through membership is 404
 * `{"message":"404 Namespace Not Found"}` (`find_namespace!`).
 */
export const namespaceRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/namespaces', access: 'user',
    params: defineParams({
      ...paginationParams,
      search: p.string(),
      owned_only: p.boolean(),
      top_level_only: p.boolean().default(false),
    }),
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.identity.listNamespaces({
        search: params.search ?? '',
        ownedOnly: params.owned_only === true,
        topLevelOnly: params.top_level_only,
        page,
        perPage,
      });
      return pageResult(req, urls.base, { page, perPage }, res.namespaces.map((ns) => namespaceEntity(ns, urls)), Number(res.total));
    },
  }),

  route({
    method: 'GET', path: '/namespaces/:id', access: 'user',
    params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services, urls }) => {
      const selector = groupSelector(params.id ?? '')?.selector;
      if (!selector) throw HttpError.notFound('Namespace');
      const { namespace } = await services.identity.getNamespace({ selector });
      return { body: namespaceEntity(namespace!, urls) };
    },
  }),
];
