import type { Actor } from '@glp/service-kit';
import type { ProjectsDeps } from './deps';

/** Only signed-in non-administrators need it: administrators read everything, anonymous callers belong to no group. */
export function needsGroupAccess(actor: Actor): boolean {
  return actor.kind === 'user' && !actor.admin;
}

/**
 * The caller's effective levels in group namespaces (id → level), those of `namespaceIds` at least (empty: every group
 * the caller has access to). From the group access cache while it keeps levels (every group, asked of identity once per
 * user and TTL, dropped when identity says they changed: a membership just added is seen at once), else asked of
 * identity for just these groups.
 */
export async function groupAccessOf(deps: Pick<ProjectsDeps, 'identity' | 'groupAccessCache'>, actor: Actor, namespaceIds: number[]): Promise<ReadonlyMap<number, number>> {
  if (!needsGroupAccess(actor)) return new Map();
  const ask = async (groupIds: number[]) => {
    const { groups } = await deps.identity.getUserGroupAccess({ userId: actor.id, groupIds });
    return new Map(groups.map((g) => [g.groupId, g.accessLevel]));
  };
  const cache = deps.groupAccessCache;
  if (cache?.keeping) return cache.levelsOf(actor.id, () => ask([]));
  return ask(namespaceIds);
}
