import type { identityV1 } from '@glp/proto';
import { systemActor, type PromiseClient } from '@glp/service-kit';

const GATEWAY_ACTOR = systemActor('gateway');

/**
 * GitLab's `find_user(id_or_username)` for `Sudo`: a numeric identifier is an id, anything else a username
 * (identity matches it case-insensitively). Undefined when there is no such user; other failures propagate.
 */
export function userFinder(identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getUser'>) {
  return async (identifier: string): Promise<identityV1.User | undefined> => {
    const byId = /^\d+$/.test(identifier);
    if (byId && !Number.isSafeInteger(Number(identifier))) return undefined; // beyond any id
    const selector = byId ? { $case: 'id' as const, value: Number(identifier) } : { $case: 'username' as const, value: identifier };
    try {
      return (await identity.getUser({ selector }, { actor: GATEWAY_ACTOR })).user;
    } catch (err) {
      if ((err as { kind?: string }).kind === 'not_found') return undefined;
      throw err;
    }
  };
}
