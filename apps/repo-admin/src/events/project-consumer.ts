import type { PoolClient } from '@glp/db';
import type { projectEventsV1 } from '@glp/proto';
import { parseBranches, type CreatePayload, type ForkPayload } from '../domain/job-rules';
import { servesStorage } from '../domain/storage-rules';
import { enqueueJob } from '../store/jobs-store';
import { deleteMirror, queueMirrorUpdate } from '../store/mirrors-store';

/** The instance default branch for a repository whose project asked for none. */
export const INSTANCE_DEFAULT_BRANCH = 'main';

/**
 * Projects' events → durable repository jobs, in the consumer's transaction (the consumer records the event as
 * processed in the same one, so a redelivery queues nothing twice). The git work happens in the job worker. Each replica
 * serves one storage (`repository_storage`) and acts only on events about repositories there.
 */
export async function onProjectCreated(client: PoolClient, e: projectEventsV1.ProjectCreated, storage = 'default'): Promise<void> {
  if (!servesStorage(storage, e.repositoryStorage)) return; // another storage's replica creates it
  // A repository imported from a URL: the import job creates it and fills it (reporting import_status).
  if (e.importSource) {
    await enqueueJob(client, e.projectId, 'import', { defaultBranch: e.defaultBranch || INSTANCE_DEFAULT_BRANCH });
    return;
  }
  const payload: CreatePayload = {
    defaultBranch: e.defaultBranch || INSTANCE_DEFAULT_BRANCH, initializeWithReadme: e.initializeWithReadme, projectName: e.name,
    description: '', creatorId: e.creatorId,
  };
  await enqueueJob(client, e.projectId, 'create', payload);
}

/** A new fork's repository is copied from its source (a fork relation made between existing projects copies nothing). */
export async function onProjectForked(client: PoolClient, e: projectEventsV1.ProjectForked, storage = 'default'): Promise<void> {
  if (!e.copyRepository || !servesStorage(storage, e.repositoryStorage)) return;
  const payload: ForkPayload = { sourceProjectId: e.forkedFromProjectId, branches: parseBranches(e.branches) };
  await enqueueJob(client, e.projectId, 'fork', payload);
}

/**
 * Its import source or mirror configuration changed (ProjectUpdated naming `import_url` or `mirror`): a mirror update
 * now, which reads the configuration again (turning the pull mirror on or off).
 */
export async function onProjectUpdated(client: PoolClient, e: projectEventsV1.ProjectUpdated, storage = 'default'): Promise<void> {
  if (!servesStorage(storage, e.repositoryStorage)) return;
  if (e.changed.includes('import_url') || e.changed.includes('mirror')) await queueMirrorUpdate(client, e.projectId);
}

/** The project is gone for good: its repository goes, and its pull mirror's state. */
export async function onProjectDeleted(client: PoolClient, e: projectEventsV1.ProjectDeleted, storage = 'default'): Promise<void> {
  if (!servesStorage(storage, e.repositoryStorage)) return;
  await deleteMirror(client, e.projectId);
  await enqueueJob(client, e.projectId, 'remove', {});
}
