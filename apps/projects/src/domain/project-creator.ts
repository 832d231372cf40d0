import type { Actor } from '@glp/service-kit';

/** Who may create a project for another user (POST /projects/user/:user_id): administrators (`authenticated_as_admin!`). */
export function mayCreateForUser(caller: Actor): boolean {
  return caller.admin;
}

/** The user a project is created for, as identity knows them. */
export interface ProjectOwnerFacts {
  id: number;
  username: string;
  isAdmin: boolean;
  external: boolean;
}

/**
 * The actor a project is created as for another user (GitLab: `Projects::CreateService.new(user, attrs)`): that user,
 * with their own administrator and external flags (so the namespace they may create in is theirs to decide), carrying
 * the caller's token scopes.
 */
export function actorForUser(caller: Actor, user: ProjectOwnerFacts): Actor {
  return { kind: 'user', id: user.id, username: user.username, admin: user.isAdmin, external: user.external, scopes: caller.scopes };
}
