import { defineParams, p } from '../http/params';
import { HttpError } from '../http/errors';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { personalAccessToken } from '../presenters/user';

/**
 * Personal access tokens (`lib/api/personal_access_tokens.rb`, self/rotate in `.../self_information.rb` and
 * `.../self_rotation.rb`): administrators see and manage every token, users their own (another user's `user_id`: 401;
 * another user's token: 401 on read and rotate (404 only to administrators), 400 on revoke, as GitLab). `self` is the
 * token of the request.
 * Revocation and rotation take effect on every gateway within a second (identity empties the shared cache).
 */

function selfToken(tokenId: number | undefined): number {
  if (!tokenId) throw HttpError.notFound(); // a request without a personal access token has no "self"
  return tokenId;
}

const idParams = defineParams({ id: p.integer().required() });

export const tokenRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/personal_access_tokens', access: 'user',
    params: defineParams({
      ...paginationParams,
      user_id: p.integer(),
      state: p.enumOf(['active', 'inactive']),
      revoked: p.boolean(),
      search: p.string(),
    }),
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.identity.listPersonalAccessTokens({
        userId: params.user_id ?? 0, state: params.state ?? '', revoked: params.revoked ?? undefined, search: params.search ?? '', page, perPage,
      });
      return pageResult(req, urls.base, { page, perPage }, res.tokens.map((t) => personalAccessToken(t, false)), Number(res.total));
    },
  }),

  route({
    method: 'GET', path: '/personal_access_tokens/self', access: 'user', params: defineParams({}),
    handler: async ({ tokenId, services }) => {
      const { token } = await services.identity.getPersonalAccessToken({ id: selfToken(tokenId) });
      return { body: personalAccessToken(token!, false) };
    },
  }),

  route({
    method: 'DELETE', path: '/personal_access_tokens/self', access: 'user', params: defineParams({}),
    handler: async ({ tokenId, services }) => {
      await services.identity.revokePersonalAccessToken({ id: selfToken(tokenId) });
      return { status: 204 };
    },
  }),

  route({
    method: 'POST', path: '/personal_access_tokens/self/rotate', access: 'user', scopes: ['self_rotate'],
    params: defineParams({ expires_at: p.date() }),
    handler: async ({ tokenId, params, services }) => {
      const { token } = await services.identity.rotatePersonalAccessToken({ id: selfToken(tokenId), expiresAt: params.expires_at ?? '' });
      return { status: 200, body: personalAccessToken(token!, true) };
    },
  }),

  route({
    method: 'GET', path: '/personal_access_tokens/:id', access: 'user', params: idParams,
    handler: async ({ params, services }) => {
      const { token } = await services.identity.getPersonalAccessToken({ id: params.id ?? 0 });
      return { body: personalAccessToken(token!, false) };
    },
  }),

  route({
    method: 'DELETE', path: '/personal_access_tokens/:id', access: 'user', params: idParams,
    handler: async ({ params, services }) => {
      await services.identity.revokePersonalAccessToken({ id: params.id ?? 0 });
      return { status: 204 };
    },
  }),

  route({
    method: 'POST', path: '/personal_access_tokens/:id/rotate', access: 'user',
    params: defineParams({ id: p.integer().required(), expires_at: p.date() }),
    handler: async ({ params, services }) => {
      const { token } = await services.identity.rotatePersonalAccessToken({ id: params.id ?? 0, expiresAt: params.expires_at ?? '' });
      return { status: 200, body: personalAccessToken(token!, true) };
    },
  }),
];
