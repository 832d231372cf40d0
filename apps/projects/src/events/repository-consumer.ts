import type { PoolClient } from '@glp/db';
import type { repositoryEventsV1 } from '@glp/proto';
import { applyRepositoryState } from '../store/projects-store';

/**
 * RepositoryChanged (repo-admin: the repository was created, filled by a fork copy or an import, or moved by a push)
 * → the project's `empty_repo`, its `default_branch` (when the repository has one) and `last_activity_at` (when refs
 * moved). Nothing else needs to learn of it, so no event follows; a project deleted meanwhile is skipped.
 */
export async function onRepositoryChanged(client: PoolClient, e: repositoryEventsV1.RepositoryChanged): Promise<void> {
  await applyRepositoryState(client, { projectId: e.projectId, empty: e.empty, defaultBranch: e.defaultBranch, pushedAt: e.pushedAt });
}
