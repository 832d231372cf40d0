import type { Actor } from '@glp/service-kit';
import type { IdentityClient } from './deps';

/** Only signed-in non-administrators need it: administrators read everything, anonymous callers belong to no group. */
export function needsGroupAccess(actor: Actor): boolean {
  return actor.kind === 'user' && !actor.admin;
}

/**
 * The caller's effective levels in group namespaces (id → level), asked of identity per request so that a membership
 * just added is seen at once (read-your-writes). `namespaceIds` empty: every group the caller has access to.
 */
export async function groupAccessOf(identity: IdentityClient, actor: Actor, namespaceIds: number[]): Promise<Map<number, number>> {
  if (!needsGroupAccess(actor)) return new Map();
  const { groups } = await identity.getUserGroupAccess({ userId: actor.id, groupIds: namespaceIds });
  return new Map(groups.map((g) => [g.groupId, g.accessLevel]));
}
