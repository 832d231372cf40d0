import type { Pool } from '@glp/db';
import { forbidden, type Actor } from '@glp/service-kit';
import { effectiveGroupAccess } from '../store/group-members-store';

/** GetUserGroupAccess: for the user themself, administrators and services (system actors are administrators). */
export async function userGroupAccess(pool: Pool, actor: Actor, userId: number, groupIds: number[]): Promise<{ groupId: number; accessLevel: number }[]> {
  if (!actor.admin && !(actor.kind === 'user' && actor.id === userId)) throw forbidden();
  const rows = await effectiveGroupAccess(pool, userId, groupIds);
  return rows.map((r) => ({ groupId: r.group_id, accessLevel: r.access_level }));
}
