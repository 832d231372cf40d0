import type { Request } from 'express';
import { ANONYMOUS, type Actor } from '@glp/service-kit';
import type { identityV1 } from '@glp/proto';
import { allowedScopes, hasScope } from '../auth/scopes';
import type { TokenAuthenticator } from '../auth/token-authenticator';
import { sudoIdentifier, tokenFromRequest } from '../auth/token-source';
import { HttpError } from './errors';
import type { RouteDef } from './route';

const INVALID_TOKEN = {
  expired: 'Token is expired. You can either do re-authorization or token refresh.',
  revoked: 'Token was revoked. You have to re-authorize from the user.',
} as const;

export interface AuthDeps {
  authenticator: Pick<TokenAuthenticator, 'authenticate'>;
  /** A user by numeric id or username (case-insensitive), for `Sudo`; undefined when there is none. */
  findUser(identifier: string): Promise<identityV1.User | undefined>;
}

function insufficientScope(allowed: readonly string[]): HttpError {
  return new HttpError(403, {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: allowed.join(' '),
  }, { 'WWW-Authenticate': `Bearer realm="", error="insufficient_scope", scope="${allowed.join(' ')}"` });
}

/**
 * Decides the caller of a request for a route, with GitLab's answers: a token that
 * does not resolve is 401 even on public routes; expired/revoked tokens get the
 * OAuth-style body; blocked users 403; a token without a scope the route accepts 403.
 * Then `Sudo` (header or `sudo` param, GitLab `sudo!`): only an administrator whose token has the `sudo`
 * scope may act as another user; the request then runs as that user, with the token's scopes.
 */
export async function authenticate(
  req: Request,
  def: Pick<RouteDef, 'method' | 'access' | 'scopes'>,
  deps: AuthDeps,
): Promise<{ actor: Actor; user?: identityV1.User; tokenId?: number }> {
  const token = tokenFromRequest(req);
  const sudo = sudoIdentifier(req);
  if (!token) {
    if (def.access === 'public' && sudo === undefined) return { actor: ANONYMOUS };
    throw HttpError.unauthorized();
  }
  const result = await deps.authenticator.authenticate(token);
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
  if (!hasScope(result.actor.scopes, allowed)) throw insufficientScope(allowed);
  let { actor, user } = result as { actor: Actor; user?: identityV1.User };
  if (sudo !== undefined) ({ actor, user } = await becomeSudoUser(actor, sudo, deps));
  if (def.access === 'admin' && !actor.admin) throw HttpError.forbidden();
  return { actor, user, tokenId: result.tokenId };
}

/** GitLab `API::Helpers#sudo!`, in its order of checks. */
async function becomeSudoUser(caller: Actor, identifier: string, deps: AuthDeps): Promise<{ actor: Actor; user: identityV1.User }> {
  if (!caller.admin) throw HttpError.forbidden('Must be admin to use sudo');
  if (!caller.scopes.includes('sudo')) throw insufficientScope(['sudo']);
  const target = await deps.findUser(identifier);
  if (!target) throw HttpError.notFound(`User with ID or username '${identifier}'`);
  return {
    user: target,
    actor: { kind: 'user', id: target.id, username: target.username, admin: target.isAdmin, scopes: caller.scopes, external: target.external },
  };
}
