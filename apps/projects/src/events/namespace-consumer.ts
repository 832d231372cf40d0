import type { PoolClient } from '@glp/db';
import type { identityEventsV1 } from '@glp/proto';
import { upsertNamespace } from '../store/namespace-replica-store';

/** NamespaceChanged → the local namespace read model (older versions are ignored). */
export async function onNamespaceChanged(client: PoolClient, event: identityEventsV1.NamespaceChanged): Promise<void> {
  const ns = event.namespace;
  if (!ns) return;
  await upsertNamespace(client, {
    id: ns.id, name: ns.name, path: ns.path, kind: ns.kind, full_path: ns.fullPath, parent_id: ns.parentId || null,
    owner_id: ns.owner?.id ?? null, owner_username: ns.owner?.username ?? null, owner_name: ns.owner?.name ?? null,
    owner_state: ns.owner?.state ?? null, version: ns.version,
  });
}
