import type { PoolClient } from '@glp/db';
import type { identityEventsV1, projectEventsV1 } from '@glp/proto';
import { deleteRequestsOfSource } from '../store/requests-store';

/** ProjectDeleted → the project's access requests go (idempotent: the consumer records the event in the same transaction). */
export async function onProjectDeleted(client: PoolClient, event: projectEventsV1.ProjectDeleted): Promise<void> {
  await deleteRequestsOfSource(client, 'project', event.projectId);
}

/** NamespaceDeleted of a group → the group's access requests go. */
export async function onNamespaceDeleted(client: PoolClient, event: identityEventsV1.NamespaceDeleted): Promise<void> {
  if (event.kind === 'group') await deleteRequestsOfSource(client, 'group', event.id);
}
