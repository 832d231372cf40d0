import type { Actor } from '@glp/service-kit';

const MAINTAINER = 40;

/**
 * `authorize_admin_project` / `:admin_web_hook` (GitLab `lib/api/project_hooks.rb`): Maintainers and Owners of the
 * project, and administrators. A Developer is 403 on every hook route, GET included (reference §13).
 */
export function mayAdminHooks(actor: Actor, accessLevel: number): boolean {
  return actor.kind === 'user' && (actor.admin || accessLevel >= MAINTAINER);
}

/** The one service that may call the delivery-side methods (MatchHooks, GetDeliveryTargets). */
export const DISPATCHER = 'webhook-dispatcher';

export function isDispatcher(actor: Actor): boolean {
  return actor.kind === 'system' && actor.username === DISPATCHER;
}
