import { withTransaction } from '@glp/db';
import { repositoryEventsV1 } from '@glp/proto';
import { DomainError, notFound, startPeriodicTask, systemActor, type Logger } from '@glp/service-kit';
import { prepareRemote } from '../disk/remote';
import { MirrorWorkspace, type RefChange } from '../disk/mirror-workspace';
import { PushReader } from '../disk/push-reader';
import { REMOTE_UNREACHABLE } from '../domain/job-rules';
import { DIVERGED_ERROR, MIRROR_NAMESPACE, decideBranch, mirroredBranch, nextUpdateDelayMs, upstreamRef } from '../domain/mirror-rules';
import { BLANK_SHA1, branchOf, defaultBranchOf, refsInPushCounts } from '../domain/ref-updates';
import { hashedDiskPath } from '../domain/hashed-storage';
import { recordPush, recordTagPush } from '../events/push-events';
import { recordRepositoryChanged } from '../events/repository-events';
import { completeJob, type JobRow } from '../store/jobs-store';
import {
  deleteMirror, findMirror, markMirrorDone, markMirrorStarted, queueMirrorUpdate, setMirrorEnabled, takeDueMirrors, type MirrorRow,
} from '../store/mirrors-store';
import { upsertRepository } from '../store/repositories-store';
import type { RepoAdminDeps } from './deps';
import { pusherOfUser, userById } from './users';
import { refEvent } from './receive-hooks';
import { repositoryOf } from './repository-jobs';
import { reportStatisticsQuietly } from './statistics';

const SERVICE = systemActor('repo-admin');

/** The mirror user as the pusher of a mirror update's events (GitLab: the mirror user pushes); a neutral one if unknown. */
async function mirrorPusher(deps: RepoAdminDeps, userId: number | undefined): Promise<{ pusher: repositoryEventsV1.Pusher; cause: { id: number; username: string } }> {
  const user = userId ? await userById(deps, userId) : undefined;
  if (user) return { pusher: pusherOfUser(user), cause: { id: user.id, username: user.username } };
  return { pusher: repositoryEventsV1.Pusher.fromPartial({ name: 'GitLab' }), cause: { id: 0, username: 'repo-admin' } };
}

/** The ref changes a mirror update makes: mirrored branches created / fast-forwarded / overwritten, and every upstream tag. */
async function planChanges(ws: MirrorWorkspace, defaultBranch: string | undefined, opts: { onlyProtectedBranches: boolean; overwriteDiverged: boolean; branchRegex: string | undefined }) {
  const upstream = await ws.refs(MIRROR_NAMESPACE);
  const local = new Map([...(await ws.refs('refs/heads/')), ...(await ws.refs('refs/tags/'))]);
  const changes: RefChange[] = [];
  let diverged = false;
  for (const [temp, newRev] of upstream) {
    const ref = upstreamRef(temp)!;
    const oldRev = local.get(ref);
    const branch = branchOf(ref);
    if (branch !== undefined) {
      if (!mirroredBranch(branch, defaultBranch, opts)) continue;
      const decision = decideBranch(oldRev, newRev, oldRev ? await ws.isAncestor(oldRev, newRev) : false, opts.overwriteDiverged);
      if (decision === 'diverged') diverged = true;
      if (decision === 'create' || decision === 'fast-forward' || decision === 'overwrite') changes.push({ ref, oldRev: oldRev ?? BLANK_SHA1, newRev });
    } else if (oldRev !== newRev) {
      changes.push({ ref, oldRev: oldRev ?? BLANK_SHA1, newRev }); // tags follow the upstream
    }
  }
  return { changes, diverged };
}

/**
 * A `mirror` job (`Projects::UpdateMirrorService`): the project's import source (from projects; credentials never in
 * events), vetted and pinned again, is fetched into a temporary namespace; mirrored branches are created or
 * fast-forwarded (diverged ones left alone unless `mirror_overwrites_diverged_branches`, with GitLab's error kept) and
 * tags follow, atomically; each moved ref writes Push / TagPush as a push would (the mirror user as pusher), with
 * RepositoryChanged, in one transaction. The mirror's state records the outcome; failures wait for the next schedule.
 */
export async function runMirrorUpdate(deps: RepoAdminDeps, job: JobRow): Promise<void> {
  const finish = async (r: { ok: boolean; error: string | null }) => {
    const mirror = await findMirror(deps.pool, job.project_id);
    const failures = mirror?.update_status === 'failed' ? 1 : 0;
    await withTransaction(deps.pool, async (client) => {
      await markMirrorDone(client, job.project_id, { ...r, nextInMs: nextUpdateDelayMs(deps.mirrorIntervalMs, !r.ok, failures) });
      await completeJob(client, job.id);
    });
  };
  const source = await importSourceOf(deps, job.project_id);
  if (!source?.mirror?.mirror) {
    // Mirroring was turned off (kept, disabled), or the project or its import source is gone (forgotten).
    await withTransaction(deps.pool, async (client) => {
      if (source) await setMirrorEnabled(client, job.project_id, false);
      else await deleteMirror(client, job.project_id);
      await completeJob(client, job.id);
    });
    return;
  }
  await setMirrorEnabled(deps.pool, job.project_id, true);
  await markMirrorStarted(deps.pool, job.project_id);
  const prepared = await prepareRemote(source.url, deps.remoteRules);
  if (!prepared.ok) return finish({ ok: false, error: prepared.reason });
  const repo = repositoryOf(deps, job.project_id);
  await repo.init('main');
  const ws = new MirrorWorkspace(deps.git, repo.dir);
  try {
    await ws.fetchUpstream(prepared.remote.url, prepared.remote.env);
  } catch {
    await ws.clear().catch(() => undefined);
    return finish({ ok: false, error: REMOTE_UNREACHABLE });
  }
  const reader = new PushReader(deps.git, repo.dir);
  let head = await repo.headBranch();
  const { changes, diverged } = await planChanges(ws, (await reader.branches()).includes(head) ? head : undefined, {
    onlyProtectedBranches: source.mirror.onlyMirrorProtectedBranches ?? false,
    overwriteDiverged: source.mirror.mirrorOverwritesDivergedBranches ?? false,
    branchRegex: source.mirror.mirrorBranchRegex || undefined,
  });
  await ws.apply(changes);
  await ws.clear();
  const branches = await reader.branches();
  if (!branches.includes(head)) {
    const chosen = defaultBranchOf(head, branches);
    if (chosen) {
      await repo.setHead(chosen);
      head = chosen;
    }
  }
  const { pusher, cause } = await mirrorPusher(deps, source.mirror.mirrorUserId);
  const pushedAt = new Date();
  const events: NonNullable<Awaited<ReturnType<typeof refEvent>>>[] = [];
  const refsInPush = refsInPushCounts(changes);
  for (const [i, change] of changes.entries()) {
    const e = await refEvent(reader, job.project_id, change, branches.includes(head) ? head : undefined, pusher, pushedAt, refsInPush[i]!);
    if (e) events.push(e);
  }
  const empty = branches.length === 0;
  await withTransaction(deps.pool, async (client) => {
    await upsertRepository(client, { projectId: job.project_id, storage: deps.storage, diskPath: hashedDiskPath(job.project_id), empty, defaultBranch: head });
    for (const e of events) {
      if (e.kind === 'push') await recordPush(client, deps.topic, e.event, cause);
      else await recordTagPush(client, deps.topic, e.event, cause);
    }
    if (changes.length) await recordRepositoryChanged(client, deps.topic, { projectId: job.project_id, empty, defaultBranch: head, pushedAt });
    await markMirrorDone(client, job.project_id, { ok: true, error: diverged ? DIVERGED_ERROR : null, nextInMs: nextUpdateDelayMs(deps.mirrorIntervalMs, false, 0) });
    await completeJob(client, job.id);
  });
  if (changes.length) await reportStatisticsQuietly(deps, job.project_id);
}

/**
 * POST /projects/:id/mirror/pull (and PUT's `force_import_job!`): an update at once (queued; one at most per project).
 * NOT_FOUND when projects says it is not a mirror: its configuration, maybe set a moment ago, is projects' (this
 * service's `pull_mirrors` row follows it only once an update ran).
 */
export async function startMirrorUpdate(deps: RepoAdminDeps, projectId: number): Promise<void> {
  if (!(await importSourceOf(deps, projectId))?.mirror?.mirror) throw notFound('Mirror');
  await queueMirrorUpdate(deps.pool, projectId);
}

/** The project's import source (URL with credentials, mirror configuration) as projects keeps it; undefined: none. */
async function importSourceOf(deps: RepoAdminDeps, projectId: number) {
  try {
    return await deps.projects.getImportSource({ projectId }, { actor: SERVICE });
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') return undefined;
    throw err;
  }
}

/** GET /projects/:id/mirror/pull: the mirror's state (GitLab's PullMirror entity's state part). */
export async function mirrorState(deps: RepoAdminDeps, projectId: number): Promise<MirrorRow> {
  const mirror = await findMirror(deps.pool, projectId);
  if (!mirror) throw notFound('Mirror');
  return mirror;
}

/** Queues the updates of enabled mirrors that are due, every `pollMs` (replicas share them: SKIP LOCKED). */
export function startMirrorScheduler(deps: RepoAdminDeps, logger: Logger, pollMs: number): { stop(): Promise<void> } {
  const schedule = () =>
    withTransaction(deps.pool, async (client) => {
      for (const projectId of await takeDueMirrors(client, deps.mirrorIntervalMs, 50)) await queueMirrorUpdate(client, projectId);
    });
  return startPeriodicTask('mirror scheduler', schedule, logger, pollMs);
}
