import type { Pool } from '@glp/db';
import type { Actor } from '@glp/service-kit';
import type { Caller } from '../domain/group-policy';
import { findUserById } from '../store/users-store';

export interface LoadedCaller extends Caller {
  canCreateGroup: boolean;
}

/** The caller as identity's own data knows it (the actor's flags are the gateway's; `external` is ours). */
export async function loadCaller(pool: Pool, actor: Actor): Promise<LoadedCaller> {
  if (actor.kind !== 'user') return { actor, external: false, canCreateGroup: false };
  const user = await findUserById(pool, actor.id);
  return { actor, external: user?.external ?? false, canCreateGroup: user?.can_create_group ?? false };
}

/** The user id the access facts are computed for (0: nobody, e.g. anonymous or a service). */
export function callerId(actor: Actor): number {
  return actor.kind === 'user' ? actor.id : 0;
}
