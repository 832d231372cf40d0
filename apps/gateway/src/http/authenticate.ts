import type { Request } from 'express';
import { ANONYMOUS, type Actor } from '@glp/service-kit';
import type { identityV1 } from '@glp/proto';
import { allowedScopes, hasScope } from '../auth/scopes';
import type { TokenAuthenticator } from '../auth/token-authenticator';
import { tokenFromRequest } from '../auth/token-source';
import { HttpError } from './errors';
import type { RouteDef } from './route';

const INVALID_TOKEN = {
  expired: 'Token is expired. You can either do re-authorization or token refresh.',
  revoked: 'Token was revoked. You have to re-authorize from the user.',
} as const;

/**
 * Decides the caller of a request for a route, with GitLab's answers: a token that
 * does not resolve is 401 even on public routes; expired/revoked tokens get the
 * OAuth-style body; blocked users 403; a token without a scope the route accepts 403.
 */
export async function authenticate(
  req: Request,
  def: Pick<RouteDef, 'method' | 'access' | 'scopes'>,
  authenticator: TokenAuthenticator,
): Promise<{ actor: Actor; user?: identityV1.User }> {
  const token = tokenFromRequest(req);
  if (!token) {
    if (def.access === 'public') return { actor: ANONYMOUS };
    throw HttpError.unauthorized();
  }
  const result = await authenticator.authenticate(token);
  if (!result.ok) {
    if (result.reason === 'expired' || result.reason === 'revoked') {
      throw new HttpError(401, { error: 'invalid_token', error_description: INVALID_TOKEN[result.reason] }, {
        'WWW-Authenticate': `Bearer realm="", error="invalid_token", error_description="${INVALID_TOKEN[result.reason]}"`,
      });
    }
    if (result.reason === 'user_blocked') throw HttpError.forbidden('Your account has been blocked.');
    throw HttpError.unauthorized();
  }
  const allowed = allowedScopes(def.method, def.scopes);
  if (!hasScope(result.actor.scopes, allowed)) {
    throw new HttpError(403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: allowed.join(' '),
    }, { 'WWW-Authenticate': `Bearer realm="", error="insufficient_scope", scope="${allowed.join(' ')}"` });
  }
  if (def.access === 'admin' && !result.actor.admin) throw HttpError.forbidden();
  return { actor: result.actor, user: result.user };
}
