import path from 'node:path';
import { withTransaction } from '@glp/db';
import { repositoryEventsV1 } from '@glp/proto';
import { systemActor } from '@glp/service-kit';
import { BareRepository, type Signature } from '../disk/bare-repository';
import { hashedDiskPath } from '../domain/hashed-storage';
import { readmeContent, REMOTE_UNREACHABLE, retryDelayMs, type CreatePayload, type ForkPayload } from '../domain/job-rules';
import { prepareRemote } from '../disk/remote';
import { runMirrorUpdate } from './pull-mirror';
import { setMirrorEnabled } from '../store/mirrors-store';
import { recordImportState, recordRepositoryChanged, recordRepositoryStatistics } from '../events/repository-events';
import { completeJob, retryJob, type JobRow } from '../store/jobs-store';
import { deleteRepository, findRepository, upsertRepository } from '../store/repositories-store';
import type { RepoAdminDeps } from './deps';
import { userById } from './users';
import { forgetProjectUploads, removeProjectUploadFiles } from './avatars';
import { housekeepRepository } from './housekeeping';
import { measureStatistics, newRepositoryStatistics, reportStatisticsQuietly } from './statistics';
import { measuredAfter } from '../domain/statistics-rules';
import { jobTimeLimitMs, timeLimitReached } from '../domain/job-capacity';
import { jobsAtTimeLimit } from './metrics';

const SERVICE = systemActor('repo-admin');
const { ImportState } = repositoryEventsV1;

/** A project's bare repository in this replica's storage. */
export const repositoryOf = (deps: Pick<RepoAdminDeps, 'git' | 'storageRoot'>, projectId: number) =>
  new BareRepository(deps.git, path.join(deps.storageRoot, hashedDiskPath(projectId)));

/** The author of commits made for a user (the README): their name and e-mail from identity; a neutral one if gone. */
async function signatureOf(deps: RepoAdminDeps, userId: number): Promise<Signature> {
  const user = await userById(deps, userId);
  return user ? { name: user.name || user.username, email: user.email || `${user.username}@noreply` } : { name: 'GitLab', email: 'noreply@gitlab.invalid' };
}

/** What a repository is: whether it has a branch, and where HEAD points. */
interface RepositoryState {
  empty: boolean;
  defaultBranch: string;
}

const stateOnDisk = async (repo: BareRepository): Promise<RepositoryState> => ({ empty: await repo.isEmpty(), defaultBranch: await repo.headBranch() });

/**
 * Records what the repository now is (row + RepositoryChanged) and ends the job, in one transaction. `known`: the state
 * this job just made (a repository it created), read from disk otherwise.
 */
async function settle(
  deps: RepoAdminDeps, job: JobRow, repo: BareRepository, extra?: (client: import('@glp/db').PoolClient) => Promise<void>, known?: RepositoryState,
): Promise<void> {
  const { empty, defaultBranch } = known ?? (await stateOnDisk(repo));
  await withTransaction(deps.pool, async (client) => {
    await upsertRepository(client, { projectId: job.project_id, storage: deps.storage, diskPath: hashedDiskPath(job.project_id), empty, defaultBranch });
    await recordRepositoryChanged(client, deps.topic, { projectId: job.project_id, empty, defaultBranch });
    await extra?.(client);
    await completeJob(client, job.id);
  });
}

/**
 * `create`: an empty bare repository on the default branch (no git process), then (initialize_with_readme) one commit
 * adding README.md; the repository's row, RepositoryChanged and its first statistics in one transaction. A repository
 * already there (a retried job, maybe pushed to since) is measured and recorded as it is on disk.
 */
async function createRepository(deps: RepoAdminDeps, job: JobRow): Promise<void> {
  const p = job.payload as unknown as CreatePayload;
  const repo = repositoryOf(deps, job.project_id);
  const created = await repo.init(p.defaultBranch);
  if (p.initializeWithReadme) {
    await repo.commitFile(p.defaultBranch, 'README.md', readmeContent(p.projectName, p.description), 'Initial commit', await signatureOf(deps, p.creatorId));
  }
  const statistics = created
    ? await newRepositoryStatistics(deps, job.project_id, p.initializeWithReadme ? 1 : 0)
    : await measureStatistics(deps, job.project_id).catch((err: unknown) => void deps.logger.warn({ err, projectId: job.project_id }, 'could not measure the repository'));
  const state = created ? { empty: !p.initializeWithReadme, defaultBranch: p.defaultBranch } : undefined;
  await settle(deps, job, repo, statistics ? (client) => recordRepositoryStatistics(client, deps.topic, statistics) : undefined, state);
}

/** A job that cannot succeed by waiting (no retry). */
class PermanentJobError extends Error {}

/**
 * `fork`: the import starts (RepositoryImportStateChanged STARTED, first attempt), the source's branches and tags are
 * copied into the fork's repository, and it finishes (FINISHED) with the repository's new state, in one transaction.
 */
async function forkRepository(deps: RepoAdminDeps, job: JobRow): Promise<void> {
  const p = job.payload as unknown as ForkPayload;
  if (job.attempts === 1) {
    await withTransaction(deps.pool, (client) => recordImportState(client, deps.topic, job.project_id, ImportState.IMPORT_STATE_STARTED));
  }
  // The source's own create job may still be queued (its events came first, but another replica may lag): wait for it.
  if (!(await findRepository(deps.pool, p.sourceProjectId))) throw new Error(`the source repository (project ${p.sourceProjectId}) does not exist yet`);
  const source = repositoryOf(deps, p.sourceProjectId);
  if (!source.exists()) throw new PermanentJobError('The source repository is missing on disk');
  const repo = repositoryOf(deps, job.project_id);
  await repo.init((await source.headBranch()) || 'main');
  await repo.copyFrom(source, p.branches);
  await settle(deps, job, repo, (client) => recordImportState(client, deps.topic, job.project_id, ImportState.IMPORT_STATE_FINISHED));
}

/**
 * `import`: the project's import source (asked of projects as this service: the URL and its credentials never travel in
 * events), vetted and pinned again at fetch time, is fetched into a new bare repository (branches, tags, HEAD), with
 * RepositoryImportStateChanged STARTED then FINISHED. A blocked URL cannot succeed by waiting (FAILED at once).
 */
async function importRepository(deps: RepoAdminDeps, job: JobRow): Promise<void> {
  const p = job.payload as { defaultBranch?: string };
  if (job.attempts === 1) {
    await withTransaction(deps.pool, (client) => recordImportState(client, deps.topic, job.project_id, ImportState.IMPORT_STATE_STARTED));
  }
  const source = await deps.projects.getImportSource({ projectId: job.project_id }, { actor: SERVICE });
  const prepared = await prepareRemote(source.url, deps.remoteRules);
  if (!prepared.ok) throw new PermanentJobError(prepared.reason);
  const repo = repositoryOf(deps, job.project_id);
  await repo.init(p.defaultBranch || 'main');
  try {
    await repo.fetchRemote(prepared.remote.url, prepared.remote.env);
  } catch {
    // git's message may quote the URL: the import error is GitLab's neutral sentence.
    throw new ImportFetchError(REMOTE_UNREACHABLE);
  }
  await settle(deps, job, repo, async (client) => {
    await recordImportState(client, deps.topic, job.project_id, ImportState.IMPORT_STATE_FINISHED);
    // A pull mirror starts its schedule with the import (its first scheduled update comes one interval later).
    if (source.mirror?.mirror) await setMirrorEnabled(client, job.project_id, true, deps.mirrorIntervalMs);
  });
}

/** A failed fetch from a remote: retried, then reported with this (credential-free) message. */
class ImportFetchError extends Error {}

/** `remove`: the repository, the project's uploads and its avatars leave the disk, then their rows. */
async function removeRepository(deps: RepoAdminDeps, job: JobRow): Promise<void> {
  await repositoryOf(deps, job.project_id).remove();
  // Its uploads and avatars too (files, then their rows with the repository's).
  await removeProjectUploadFiles(deps, job.project_id);
  await withTransaction(deps.pool, async (client) => {
    await deleteRepository(client, job.project_id);
    await forgetProjectUploads(client, job.project_id);
    await completeJob(client, job.id);
  });
}

const HANDLERS = {
  create: createRepository, fork: forkRepository, remove: removeRepository, import: importRepository, housekeeping: housekeepRepository,
  // Called through a closure: pull-mirror.ts imports this module too.
  mirror: (deps: RepoAdminDeps, job: JobRow) => runMirrorUpdate(deps, job),
} as const;

/**
 * Runs one claimed job within its kind's time limit: every git command of the job gets the job's abort signal, so a
 * fetch from a server that trickles bytes is killed at the limit rather than after GIT_TIMEOUT_MS (and at `shutdown`,
 * after which the job is due again for the next worker). A failure is retried
 * with backoff; a fork or import that still fails after `jobMaxAttempts` (or cannot succeed) fails for good:
 * RepositoryImportStateChanged FAILED with the reason (never a URL), and the job ends.
 */
export async function runJob(deps: RepoAdminDeps, job: JobRow, shutdown?: AbortSignal): Promise<void> {
  const limitMs = jobTimeLimitMs(job.kind, deps.jobs);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limitMs);
  const signal = shutdown ? AbortSignal.any([deadline.signal, shutdown]) : deadline.signal;
  const jobDeps: RepoAdminDeps = { ...deps, git: { ...deps.git, signal } };
  try {
    await HANDLERS[job.kind](jobDeps, job);
    if (measuredAfter(job.kind)) await reportStatisticsQuietly(deps, job.project_id);
  } catch (err) {
    if (shutdown?.aborted && !deadline.signal.aborted) {
      // Stopped with the process, not failed: due again at once for the next worker (the attempt stays counted).
      deps.logger.info({ job: { id: job.id, kind: job.kind, project_id: job.project_id } }, 'repository job stopped by shutdown');
      await retryJob(deps.pool, job.id, 0, 'stopped by shutdown');
      return;
    }
    if (deadline.signal.aborted) jobsAtTimeLimit.inc({ kind: job.kind });
    const message = deadline.signal.aborted ? timeLimitReached(limitMs) : err instanceof Error ? err.message : String(err);
    const reportsImport = job.kind === 'fork' || job.kind === 'import';
    const final = reportsImport && (err instanceof PermanentJobError || job.attempts >= deps.jobMaxAttempts);
    deps.logger.warn({ err, job: { id: job.id, kind: job.kind, project_id: job.project_id, attempts: job.attempts }, final, time_limit_reached: deadline.signal.aborted }, 'repository job failed');
    if (!final) {
      await retryJob(deps.pool, job.id, retryDelayMs(job.attempts), message);
      return;
    }
    await withTransaction(deps.pool, async (client) => {
      const reason = err instanceof PermanentJobError || err instanceof ImportFetchError ? err.message : job.kind === 'import' ? REMOTE_UNREACHABLE : 'Failed to copy the repository';
      await recordImportState(client, deps.topic, job.project_id, ImportState.IMPORT_STATE_FAILED, reason);
      await completeJob(client, job.id);
    });
  } finally {
    clearTimeout(timer);
  }
}
