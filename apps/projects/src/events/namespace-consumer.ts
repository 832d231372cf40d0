import type { PoolClient } from '@glp/db';
import type { identityEventsV1 } from '@glp/proto';
import { systemActor } from '@glp/service-kit';
import { deleteNamespaceProjects } from '../store/deletion-store';
import { deleteGroupLinksOfGroup } from '../store/sharing-store';
import { namespaceReplica, removeNamespace, upsertNamespace } from '../store/namespace-replica-store';
import { unlinkForksOfSources } from '../store/forks-store';
import { recordProjectDeleted, recordProjectForksRemoved, recordProjectUnshared } from './project-events';

const SERVICE = systemActor('projects');

/**
 * NamespaceChanged → the local namespace read model (older versions are ignored). A renamed or moved namespace leaves
 * its projects' old full paths as redirect routes, and a new or re-pathed one clears the redirects at and below its
 * path, in this transaction (upsertNamespace; GitLab's Route callbacks).
 */
export async function onNamespaceChanged(client: PoolClient, event: identityEventsV1.NamespaceChanged): Promise<void> {
  const ns = event.namespace;
  if (!ns) return;
  await upsertNamespace(client, namespaceReplica(ns));
}

/**
 * NamespaceDeleted (a group, or a deleted user's personal namespace) → its projects go for good, as GitLab deletes a
 * group's projects with it: each with ProjectDeleted in this same transaction, so every service cleans up; shares of
 * other projects with the group go (ProjectUnshared); then the replica row.
 */
export async function onNamespaceDeleted(client: PoolClient, event: identityEventsV1.NamespaceDeleted, topic: string): Promise<void> {
  await recordProjectForksRemoved(client, topic, await unlinkForksOfSources(client, { namespaceId: event.id }), SERVICE);
  for (const gone of await deleteNamespaceProjects(client, event.id)) await recordProjectDeleted(client, topic, gone, SERVICE);
  // Projects elsewhere that were shared with the deleted group are no longer shared with it.
  for (const projectId of await deleteGroupLinksOfGroup(client, event.id)) {
    await recordProjectUnshared(client, topic, { projectId, groupId: event.id }, SERVICE);
  }
  await removeNamespace(client, event.id);
}
