import type { PoolClient } from '@glp/db';
import type { projectEventsV1 } from '@glp/proto';
import { deletePushRule } from '../store/push-rules-store';

/** ProjectDeleted → the project's push rule goes (in the consumer's transaction: a redelivery is a no-op). */
export async function onProjectDeleted(client: PoolClient, event: projectEventsV1.ProjectDeleted): Promise<void> {
  await deletePushRule(client, event.projectId);
}
