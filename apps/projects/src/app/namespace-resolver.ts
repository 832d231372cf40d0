import type { Pool } from '@glp/db';
import type { identityV1 } from '@glp/proto';
import { DomainError, invalid, notFound, type Actor, type PromiseClient } from '@glp/service-kit';
import { ACCESS } from '../domain/visibility';
import type { ProjectsDeps } from './deps';
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

/** A namespace chosen by id or full path (transfer, fork); neither set selects nothing (404). */
export type NamespaceChoice = { $case: 'namespaceId'; value: number } | { $case: 'namespacePath'; value: string } | undefined;

/**
 * The namespace as identity shows it to the caller, with their level there (GitLab's `find_namespace!`): 404 Namespace
 * Not Found when missing or hidden. The replica is refreshed with what identity answered.
 */
export async function visibleNamespace(deps: Pick<ProjectsDeps, 'pool' | 'identity'>, sel: NamespaceChoice): Promise<{ ns: NamespaceReplica; callerAccess: number }> {
  const selector = sel?.$case === 'namespacePath' ? { $case: 'fullPath' as const, value: sel.value } : { $case: 'id' as const, value: sel?.$case === 'namespaceId' ? sel.value : 0 };
  try {
    const res = await deps.identity.getNamespace({ selector });
    const ns = namespaceReplica(res.namespace!);
    await upsertNamespace(deps.pool, ns);
    return { ns, callerAccess: res.callerAccessLevel };
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') throw notFound('Namespace');
    throw err;
  }
}

/** May the actor create projects in the namespace (their own, or a group where they are Maintainer or above)? */
export function mayCreateIn(actor: Actor, ns: Pick<NamespaceReplica, 'kind' | 'owner_id'>, callerAccess: number): boolean {
  return actor.admin || (ns.kind === 'user' ? ns.owner_id === actor.id : callerAccess >= ACCESS.MAINTAINER);
}
