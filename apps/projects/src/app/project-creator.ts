import { DomainError, forbidden, notFound, type Actor } from '@glp/service-kit';
import { actorForUser, mayCreateForUser } from '../domain/project-creator';
import type { IdentityClient } from './deps';

/**
 * Who a new project is created as. `userId` 0: the caller. Otherwise (POST /projects/user/:user_id, GitLab
 * `lib/api/projects.rb` `post "user/:user_id"`): administrators only (403), the user read from identity as the caller
 * (`User.find_by(id:)`; missing → 404 "404 User Not Found"), and the project is then created as that user.
 */
export async function projectCreator(identity: Pick<IdentityClient, 'getUser'>, caller: Actor, userId: number): Promise<Actor> {
  if (!userId) return caller;
  if (!mayCreateForUser(caller)) throw forbidden();
  try {
    const { user } = await identity.getUser({ selector: { $case: 'id', value: userId } }, { actor: caller });
    if (!user) throw notFound('User');
    return actorForUser(caller, { id: user.id, username: user.username, isAdmin: user.isAdmin, external: user.external });
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') throw notFound('User');
    throw err;
  }
}

/** The identity calls of a create, made as the creator: the namespace they may create in is decided for them. */
export function namespacesAs(identity: Pick<IdentityClient, 'getNamespace'>, creator: Actor): Pick<IdentityClient, 'getNamespace'> {
  return { getNamespace: (req, opts) => identity.getNamespace(req, { ...opts, actor: creator }) };
}
