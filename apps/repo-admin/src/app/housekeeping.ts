import { randomBytes } from 'node:crypto';
import { withTransaction, type PoolClient } from '@glp/db';
import type { repoAdminV1 } from '@glp/proto';
import { badRequest, conflict, forbidden, type Actor } from '@glp/service-kit';
import { gcRepository, pruneRepository } from '../disk/housekeeping';
import { HOUSEKEEPING_LEASE_TAKEN, isHousekeepingTask, mayAdminProject } from '../domain/repository-access';
import type { HousekeepingPayload } from '../domain/job-rules';
import { completeJob, enqueueHousekeepingJob, type JobRow } from '../store/jobs-store';
import type { RepoAdminDeps } from './deps';
import { projectAsSeenBy } from './project-access';
import { projectRepository } from './project-repository';

/**
 * POST /projects/:id/housekeeping (`lib/api/projects.rb`, `Repositories::HousekeepingService`): Maintainers (404 for a
 * hidden project, 403 below Maintainer). Takes the project's housekeeping lease by queuing the job — 409 with GitLab's
 * message while another is queued or running — and answers the job's id (GitLab answers its Sidekiq job id, 24 hex).
 */
export async function startHousekeeping(deps: RepoAdminDeps, actor: Actor, ref: repoAdminV1.ProjectRef | undefined, task: string): Promise<string> {
  const effective = task || 'eager';
  if (!isHousekeepingTask(effective)) throw badRequest('task does not have a valid value');
  const project = await projectAsSeenBy(deps, actor, ref);
  if (!mayAdminProject(actor, project.accessLevel)) throw forbidden();
  const payload: HousekeepingPayload = { task: effective, jid: randomBytes(12).toString('hex') };
  const queued = await withTransaction(deps.pool, (client: PoolClient) => enqueueHousekeepingJob(client, project.id, payload));
  if (!queued) throw conflict(HOUSEKEEPING_LEASE_TAKEN);
  return payload.jid;
}

/**
 * The `housekeeping` job: `git gc` (eager) or `git prune` of unreachable objects (prune), as GitLab's
 * GitGarbageCollectWorker asks Gitaly (OptimizeRepository / PruneUnreachableObjects). Like that worker (`retry: false`,
 * lease cancelled in `ensure`), a failure is logged and not retried: the job ends either way and the lease with it.
 */
export async function housekeepRepository(deps: RepoAdminDeps, job: JobRow): Promise<void> {
  const p = job.payload as unknown as HousekeepingPayload;
  const repo = projectRepository(deps, job.project_id);
  try {
    if (!repo.exists()) throw new Error('Repository not found');
    if (p.task === 'prune') await pruneRepository(deps.git, repo.dir);
    else await gcRepository(deps.git, repo.dir);
  } catch (err) {
    deps.logger.warn({ err, job: { id: job.id, project_id: job.project_id, task: p.task } }, 'housekeeping failed');
  }
  await withTransaction(deps.pool, (client) => completeJob(client, job.id));
}
