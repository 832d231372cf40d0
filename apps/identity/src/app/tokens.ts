import { withTransaction, type Pool } from '@glp/db';
import { badRequest, recordNotFound, unauthenticated, type Actor } from '@glp/service-kit';
import { canManageToken, generateTokenSecret, tokenRefusal, rotatedExpiry, tokenDigest, tokenState } from '../domain/tokens';
import type { AuthCacheInvalidator } from '../events/auth-cache-invalidator';
import { findTokenById, insertToken, listTokens as listTokenRows, revokeToken as revokeTokenRow, type TokenWithState } from '../store/tokens-store';

export interface TokensDeps {
  pool: Pool;
  authCache: AuthCacheInvalidator;
}

export interface ListTokensInput {
  userId: number;
  state: string;
  revoked?: boolean;
  search: string;
  page: number;
  perPage: number;
}

/** GET /personal_access_tokens: administrators every token (or one user's); others their own (another user's: 401). */
export async function listTokens(deps: TokensDeps, actor: Actor, input: ListTokensInput): Promise<{ rows: TokenWithState[]; total: number }> {
  if (actor.kind !== 'user' && !actor.admin) throw unauthenticated();
  if (!actor.admin && input.userId && input.userId !== actor.id) throw unauthenticated();
  return listTokenRows(deps.pool, {
    userId: actor.admin ? input.userId : actor.id,
    state: input.state === 'active' || input.state === 'inactive' ? input.state : '',
    revoked: input.revoked,
    search: input.search,
    limit: input.perPage,
    offset: (input.page - 1) * input.perPage,
  });
}

/** GET /personal_access_tokens/:id (and /self): the owner's or an administrator's; else 404 to administrators, 401 to others. */
export async function getToken(deps: TokensDeps, actor: Actor, id: number): Promise<TokenWithState> {
  const token = await findTokenById(deps.pool, id);
  if (!token || !canManageToken(actor, token.user_id)) throw tokenRefusal(actor);
  return token;
}

/** DELETE /personal_access_tokens/:id (and /self): revoked at once on every gateway (auth cache entry deleted). */
export async function revokeToken(deps: TokensDeps, actor: Actor, id: number): Promise<void> {
  const token = await findTokenById(deps.pool, id);
  if (!token) throw recordNotFound();
  if (!canManageToken(actor, token.user_id)) throw badRequest(''); // GitLab: the revoke service fails → `bad_request!(nil)`
  const digest = await revokeTokenRow(deps.pool, id);
  if (digest) await deps.authCache.invalidate([digest]);
}

/**
 * POST /personal_access_tokens/:id/rotate (and /self/rotate): in one transaction the token is revoked and a new one with
 * the same name, scopes and description issued (expiring `expiresAt`, else in a week); the old one stops working on
 * every gateway before the answer.
 */
export async function rotateToken(deps: TokensDeps, actor: Actor, id: number, expiresAt: string): Promise<{ row: TokenWithState; secret: string }> {
  const expiry = rotatedExpiry(expiresAt);
  const secret = generateTokenSecret();
  const { row, oldDigest } = await withTransaction(deps.pool, async (client) => {
    const token = await findTokenById(client, id, true);
    if (!token || !canManageToken(actor, token.user_id)) throw tokenRefusal(actor);
    if (tokenState({ revoked: token.revoked, expiresAt: token.expires_at, userState: 'active' }) !== 'active') {
      throw badRequest(token.revoked ? 'Token already revoked' : 'Token already expired');
    }
    const digest = await revokeTokenRow(client, id);
    const created = await insertToken(client, {
      userId: token.user_id, name: token.name, description: token.description, digest: tokenDigest(secret), scopes: token.scopes, expiresAt: expiry,
    });
    return { row: { ...created, user_state: token.user_state }, oldDigest: digest };
  });
  if (oldDigest) await deps.authCache.invalidate([oldDigest]);
  return { row, secret };
}
