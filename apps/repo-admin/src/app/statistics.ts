import { withTransaction } from '@glp/db';
import type { repoAdminV1 } from '@glp/proto';
import { forbidden, type Actor } from '@glp/service-kit';
import { commitCount, directorySize, resolveCommit } from '../disk/repository-measure';
import { mayAdminProject } from '../domain/repository-access';
import { recordRepositoryStatistics } from '../events/repository-events';
import type { RepoAdminDeps } from './deps';
import { projectAsSeenBy } from './project-access';
import { projectRepository } from './project-repository';

export interface RepositoryStatistics {
  projectId: number;
  commitCount: number;
  repositorySize: number;
  wikiSize: number;
  lfsObjectsSize: number;
  uploadsSize: number;
}

/**
 * What GitLab's ProjectStatistics keeps of a repository (`app/models/project_statistics.rb`): `commit_count` of the
 * default branch (`repository.commit_count`), `repository_size` and `wiki_size` as the bytes the bare repositories take on
 * disk, `lfs_objects_size` 0 (no LFS here), `uploads_size` 0 (uploads are measured where they are kept).
 */
export async function measureStatistics(deps: Pick<RepoAdminDeps, 'git' | 'storageRoot'>, projectId: number): Promise<RepositoryStatistics> {
  const repo = projectRepository(deps, projectId);
  let commits = 0;
  if (repo.exists()) {
    const head = await repo.headBranch();
    const commit = head ? await resolveCommit(deps.git, repo.dir, `refs/heads/${head}`) : undefined;
    if (commit) commits = await commitCount(deps.git, repo.dir, commit);
  }
  return {
    projectId,
    commitCount: commits,
    repositorySize: await directorySize(repo.dir),
    wikiSize: await directorySize(projectRepository(deps, projectId, true).dir),
    lfsObjectsSize: 0,
    uploadsSize: 0,
  };
}

/** The statistics of a repository this process just created with `commits` commits: its sizes, without a git process. */
export async function newRepositoryStatistics(deps: Pick<RepoAdminDeps, 'git' | 'storageRoot'>, projectId: number, commits: number): Promise<RepositoryStatistics> {
  return {
    projectId,
    commitCount: commits,
    repositorySize: await directorySize(projectRepository(deps, projectId).dir),
    wikiSize: await directorySize(projectRepository(deps, projectId, true).dir),
    lfsObjectsSize: 0,
    uploadsSize: 0,
  };
}

/**
 * Measures a project's repository now and publishes RepositoryStatisticsChanged (projects keeps the newest measurement
 * and shows it with `statistics=true`). Called after every job that changes a repository (create, fork copy, import,
 * housekeeping), by `POST /projects/:id/repository_size`, and by the push path after a push lands.
 */
export async function reportStatistics(deps: Pick<RepoAdminDeps, 'pool' | 'topic' | 'git' | 'storageRoot'>, projectId: number): Promise<RepositoryStatistics> {
  const measured = await measureStatistics(deps, projectId);
  await withTransaction(deps.pool, (client) => recordRepositoryStatistics(client, deps.topic, measured));
  return measured;
}

/**
 * POST /projects/:id/repository_size (`lib/api/projects.rb`: `authorize_admin_project`, then
 * `Projects::UpdateStatisticsService` refreshes the sizes at once): Maintainers and administrators (404 for a hidden
 * project, 403 below Maintainer).
 */
export async function refreshStatistics(deps: RepoAdminDeps, actor: Actor, ref: repoAdminV1.ProjectRef | undefined): Promise<void> {
  const project = await projectAsSeenBy(deps, actor, ref);
  if (!mayAdminProject(actor, project.accessLevel)) throw forbidden();
  await reportStatistics(deps, project.id);
}

/** reportStatistics after a job: a failure to measure is logged, never a failed (retried) job. */
export async function reportStatisticsQuietly(deps: Pick<RepoAdminDeps, 'pool' | 'topic' | 'git' | 'storageRoot' | 'logger'>, projectId: number): Promise<void> {
  try {
    await reportStatistics(deps, projectId);
  } catch (err) {
    deps.logger.warn({ err, project_id: projectId }, 'repository statistics not reported');
  }
}
