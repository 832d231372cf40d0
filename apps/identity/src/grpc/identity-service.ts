import type { Pool } from '@glp/db';
import { identityV1 } from '@glp/proto';
import { forbidden, notFound, badRequest, type AsyncService, type Logger } from '@glp/service-kit';
import { generateTokenSecret, resolveNewToken, tokenDigest, tokenState } from '../domain/tokens';
import { findTokenWithUser, insertToken, touchToken } from '../store/tokens-store';
import { findUserById } from '../store/users-store';
import { createUser, newUserFromRequest } from './create-user';
import type { AuthCacheInvalidator } from '../events/auth-cache-invalidator';
import type { GroupAccessInvalidator } from '../events/group-access-invalidator';
import { applicationSettingsService } from './application-settings-service';
import { groupService } from './group-service';
import { tokenService } from './token-service';
import { userService } from './user-service';
import { toProtoToken, toProtoUser } from './mappers';

const STATUS: Record<ReturnType<typeof tokenState>, identityV1.TokenStatus> = {
  active: identityV1.TokenStatus.TOKEN_STATUS_ACTIVE,
  expired: identityV1.TokenStatus.TOKEN_STATUS_EXPIRED,
  revoked: identityV1.TokenStatus.TOKEN_STATUS_REVOKED,
  user_blocked: identityV1.TokenStatus.TOKEN_STATUS_USER_BLOCKED,
};

export function identityService(deps: {
  pool: Pool;
  topic: string;
  logger: Logger;
  countLimit: number;
  /** Empties the gateways' shared auth cache when a token's answer changes. */
  authCache: AuthCacheInvalidator;
  /** Tells projects whose group levels a change altered. */
  groupAccess: GroupAccessInvalidator;
  /** Start-up defaults of the application settings row (ALLOW_LOCAL_WEBHOOKS, OUTBOUND_ALLOWLIST). */
  settingsDefaults?: { allowLocalWebhooks: boolean; outboundAllowlist: readonly string[] };
}): AsyncService<identityV1.IdentityServiceServer> {
  const { pool, topic, logger, countLimit, authCache, groupAccess } = deps;
  return {
    async authenticateToken(req) {
      const found = req.token ? await findTokenWithUser(pool, tokenDigest(req.token)) : undefined;
      if (!found) return identityV1.AuthenticateTokenResponse.fromPartial({ status: identityV1.TokenStatus.TOKEN_STATUS_NOT_FOUND });
      const state = tokenState({ revoked: found.token.revoked, expiresAt: found.token.expires_at, userState: found.user.state });
      if (state === 'active') {
        touchToken(pool, found.token.id).catch((err: unknown) => logger.warn({ err }, 'could not record token use'));
      }
      return identityV1.AuthenticateTokenResponse.fromPartial({
        status: STATUS[state],
        user: toProtoUser(found.user),
        scopes: found.token.scopes,
        tokenId: found.token.id,
      });
    },

    async createUser(req, ctx) {
      const user = await createUser(pool, topic, ctx.actor, {
        ...newUserFromRequest(req),
        randomPassword: req.forceRandomPassword || req.resetPassword,
      });
      return { user: toProtoUser(user) };
    },

    async createPersonalAccessToken(req, ctx) {
      if (!ctx.actor.admin) throw forbidden();
      const user = await findUserById(pool, req.userId);
      if (!user) throw notFound('User');
      if (user.bot) throw badRequest('Bot users cannot have personal access tokens created this way');
      const { expiresAt } = resolveNewToken({ name: req.name, scopes: req.scopes, expiresAt: req.expiresAt });
      const secret = generateTokenSecret();
      const row = await insertToken(pool, {
        userId: user.id,
        name: req.name,
        description: req.description,
        digest: tokenDigest(secret),
        scopes: [...new Set(req.scopes)],
        expiresAt,
      });
      return { token: toProtoToken(row, user.state, secret) };
    },
    ...groupService({ pool, topic, countLimit, groupAccess }),
    ...tokenService({ pool, authCache }),
    ...userService({ pool, topic, authCache, countLimit }),
    ...applicationSettingsService({ pool, topic, defaults: deps.settingsDefaults ?? { allowLocalWebhooks: false, outboundAllowlist: [] } }),
  };
}
