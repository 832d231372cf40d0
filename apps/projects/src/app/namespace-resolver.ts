import type { Pool } from '@glp/db';
import type { identityV1 } from '@glp/proto';
import { DomainError, invalid, type Actor, type PromiseClient } from '@glp/service-kit';
import { ACCESS } from '../domain/visibility';
import { findNamespace, findPersonalNamespace, namespaceReplica, upsertNamespace, type NamespaceReplica } from '../store/namespace-replica-store';

const namespaceInvalid = () => invalid({ namespace: ['is not valid'] });

/**
 * The namespace a project is created in, and proof the caller may create there.
 * Read from the local replica; when the NamespaceChanged event has not arrived yet,
 * asked from identity (as the caller) and stored, so a new user can create at once.
 */
export async function resolveTargetNamespace(
  pool: Pool,
  identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getNamespace'>,
  actor: Actor,
  namespaceId: number,
): Promise<NamespaceReplica> {
  let ns = namespaceId ? await findNamespace(pool, namespaceId) : await findPersonalNamespace(pool, actor.id);
  if (ns && ns.kind === 'user' && (ns.owner_id === actor.id || actor.admin)) return ns;
  let callerAccess = 0;
  try {
    const res = await identity.getNamespace(namespaceId ? { selector: { $case: 'id', value: namespaceId } } : { selector: { $case: 'fullPath', value: actor.username } });
    if (!res.namespace) throw namespaceInvalid();
    ns = namespaceReplica(res.namespace);
    callerAccess = res.callerAccessLevel;
    await upsertNamespace(pool, ns);
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') throw namespaceInvalid();
    throw err;
  }
  if (!namespaceId && ns.owner_id !== actor.id) throw namespaceInvalid();
  if (callerAccess < ACCESS.MAINTAINER && !actor.admin) throw namespaceInvalid();
  return ns;
}
