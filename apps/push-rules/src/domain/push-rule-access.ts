import type { Actor } from '@glp/service-kit';

const MAINTAINER = 40;

/**
 * `authorize_admin_project` (`ee/lib/api/project_push_rule.rb`: `before { authorize_admin_project }`): Maintainers
 * and Owners of the project, and administrators; anyone else who sees the project is 403, GET included.
 */
export function mayAdminPushRule(actor: Actor, accessLevel: number): boolean {
  return actor.kind === 'user' && (actor.admin || accessLevel >= MAINTAINER);
}

/** The one caller of GetPushChecks / CheckPush: repo-admin's pre-receive check. */
export const REPO_ADMIN = 'repo-admin';

export function isRepoAdmin(actor: Actor): boolean {
  return actor.kind === 'system' && actor.username === REPO_ADMIN;
}
