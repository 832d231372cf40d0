import type { PoolClient } from '@glp/db';
import type { projectEventsV1 } from '@glp/proto';
import { parseBranches, type CreatePayload, type ForkPayload } from '../domain/job-rules';
import { enqueueJob } from '../store/jobs-store';

/** The instance default branch for a repository whose project asked for none. */
export const INSTANCE_DEFAULT_BRANCH = 'main';

/**
 * Projects' events → durable repository jobs, in the consumer's transaction (the consumer records the event as
 * processed in the same one, so a redelivery queues nothing twice). The git work happens in the job worker.
 */
export async function onProjectCreated(client: PoolClient, e: projectEventsV1.ProjectCreated): Promise<void> {
  const payload: CreatePayload = {
    defaultBranch: e.defaultBranch || INSTANCE_DEFAULT_BRANCH, initializeWithReadme: e.initializeWithReadme, projectName: e.name,
    description: '', creatorId: e.creatorId,
  };
  await enqueueJob(client, e.projectId, 'create', payload);
}

/** A new fork's repository is copied from its source (a fork relation made between existing projects copies nothing). */
export async function onProjectForked(client: PoolClient, e: projectEventsV1.ProjectForked): Promise<void> {
  if (!e.copyRepository) return;
  const payload: ForkPayload = { sourceProjectId: e.forkedFromProjectId, branches: parseBranches(e.branches) };
  await enqueueJob(client, e.projectId, 'fork', payload);
}

/** The project is gone for good: its repository goes. */
export async function onProjectDeleted(client: PoolClient, e: projectEventsV1.ProjectDeleted): Promise<void> {
  await enqueueJob(client, e.projectId, 'remove', {});
}
