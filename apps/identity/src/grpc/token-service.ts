import type { identityV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import { getToken, listTokens, revokeToken, rotateToken, type TokensDeps } from '../app/tokens';
import { pageOf } from './group-mappers';
import { toProtoToken } from './mappers';

type TokenMethods = 'listPersonalAccessTokens' | 'getPersonalAccessToken' | 'revokePersonalAccessToken' | 'rotatePersonalAccessToken';

/** gRPC adapters of personal access token management: decode, call the use case, encode. */
export function tokenService(deps: TokensDeps): Pick<AsyncService<identityV1.IdentityServiceServer>, TokenMethods> {
  return {
    async listPersonalAccessTokens(req, ctx) {
      const { rows, total } = await listTokens(deps, ctx.actor, {
        userId: req.userId, state: req.state, revoked: req.revoked, search: req.search, ...pageOf(req.page, req.perPage),
      });
      return { tokens: rows.map((t) => toProtoToken(t, t.user_state)), total };
    },
    async getPersonalAccessToken(req, ctx) {
      const t = await getToken(deps, ctx.actor, req.id);
      return { token: toProtoToken(t, t.user_state) };
    },
    async revokePersonalAccessToken(req, ctx) {
      await revokeToken(deps, ctx.actor, req.id);
      return {};
    },
    async rotatePersonalAccessToken(req, ctx) {
      const { row, secret } = await rotateToken(deps, ctx.actor, req.id, req.expiresAt);
      return { token: toProtoToken(row, row.user_state, secret) };
    },
  };
}
