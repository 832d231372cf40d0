import type { PoolClient } from '@glp/db';
import type { repositoryEventsV1 } from '@glp/proto';
import { storedSizes } from '../domain/statistics-rules';
import { applyMeasuredSizes } from '../store/statistics-store';

/**
 * RepositoryStatisticsChanged (repo-admin measured a project's repository, wiki, LFS objects and uploads) → the
 * project's statistics (storage_size follows: it is generated from the parts), in the consumer's transaction. A
 * measurement older than the one applied (`occurredAt`) changes nothing; a project deleted meanwhile is skipped. Nobody
 * else needs to learn of it, so no event follows.
 */
export async function onRepositoryStatisticsChanged(
  client: PoolClient,
  event: repositoryEventsV1.RepositoryStatisticsChanged,
  occurredAt: Date | undefined,
): Promise<void> {
  await applyMeasuredSizes(client, event.projectId, storedSizes(event), occurredAt ?? new Date());
}
