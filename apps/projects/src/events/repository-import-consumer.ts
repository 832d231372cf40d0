import type { PoolClient } from '@glp/db';
import { repositoryEventsV1 } from '@glp/proto';
import { systemActor } from '@glp/service-kit';
import { nextImportStatus } from '../domain/fork-rules';
import { lockImportStatus, setImportStatus } from '../store/forks-store';
import { findProjectById } from '../store/projects-store';
import { recordProjectUpdated } from './project-events';

const SERVICE = systemActor('projects');

const REPORTS: Partial<Record<repositoryEventsV1.ImportState, 'started' | 'finished' | 'failed'>> = {
  [repositoryEventsV1.ImportState.IMPORT_STATE_STARTED]: 'started',
  [repositoryEventsV1.ImportState.IMPORT_STATE_FINISHED]: 'finished',
  [repositoryEventsV1.ImportState.IMPORT_STATE_FAILED]: 'failed',
};

/**
 * RepositoryImportStateChanged (repo-admin, copying a fork's repository) → the project's import_status, moved only the
 * way GitLab's import state machine allows (a replayed or late report changes nothing), with the failure text as
 * import_error, and ProjectUpdated (changed: import_status) in the same transaction. A project deleted meanwhile is skipped.
 */
export async function onRepositoryImportStateChanged(client: PoolClient, event: repositoryEventsV1.RepositoryImportStateChanged, topic: string): Promise<void> {
  const report = REPORTS[event.state];
  if (!report) return;
  const current = await lockImportStatus(client, event.projectId);
  if (current === undefined) return;
  const next = nextImportStatus(current, report);
  if (!next) return;
  await setImportStatus(client, event.projectId, next, next === 'failed' ? event.error || 'Import failed' : null);
  const row = await findProjectById(client, event.projectId, 0);
  if (!row) return;
  await recordProjectUpdated(client, topic, {
    id: row.id, pathWithNamespace: `${row.ns_full_path}/${row.path}`, visibility: row.visibility, archived: row.archived, changed: ['import_status'], repositoryStorage: row.repository_storage,
  }, SERVICE);
}
