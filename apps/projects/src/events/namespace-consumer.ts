import type { PoolClient } from '@glp/db';
import type { identityEventsV1 } from '@glp/proto';
import { namespaceReplica, removeNamespace, upsertNamespace } from '../store/namespace-replica-store';

/** NamespaceChanged → the local namespace read model (older versions are ignored). */
export async function onNamespaceChanged(client: PoolClient, event: identityEventsV1.NamespaceChanged): Promise<void> {
  const ns = event.namespace;
  if (!ns) return;
  await upsertNamespace(client, namespaceReplica(ns));
}

/** NamespaceDeleted (a group and its subgroups are gone) → its projects are scheduled for deletion, the replica row goes. */
export async function onNamespaceDeleted(client: PoolClient, event: identityEventsV1.NamespaceDeleted): Promise<void> {
  await removeNamespace(client, event.id);
}
