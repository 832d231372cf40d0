import { repositoryEventsV1 } from '@glp/proto';
import { forbidden, notFound, type Actor } from '@glp/service-kit';
import { PushReader } from '../disk/push-reader';
import { commitListLimit, refCandidates } from '../domain/commit-listing';
import { findRepository } from '../store/repositories-store';
import type { RepoAdminDeps } from './deps';
import { projectRepository } from './project-repository';
import { toPushCommit } from './receive-hooks';

/** A listing never waits on git longer than this (GIT_TIMEOUT_MS is sized for clones and imports). */
const LIST_TIMEOUT_MS = 30_000;

export interface CommitListing {
  /** The full ref listed; '' when there was nothing to list (an empty repository). */
  ref: string;
  /** Newest first. */
  commits: repositoryEventsV1.PushCommit[];
}

/**
 * ListCommits (system actors only: the webhook-dispatcher's sample push for hook tests, as GitLab's
 * `Gitlab::DataBuilder::Push.build_sample` reads the newest commits of the default branch): the newest `limit`
 * commits of `ref` (empty: HEAD), newest first, each as a push payload shows it (message, title, timestamp, author,
 * added/modified/removed files: the same code the push events use). A project this shard has no repository for is
 * NOT_FOUND; an empty repository (or HEAD on a branch not born yet) answers no commits and ref ''; a named ref that
 * does not exist is NOT_FOUND.
 */
export async function listCommits(deps: RepoAdminDeps, actor: Actor, req: { projectId: number; ref: string; limit: number }): Promise<CommitListing> {
  if (actor.kind !== 'system') throw forbidden();
  const row = await findRepository(deps.pool, req.projectId);
  const repo = projectRepository(deps, req.projectId);
  if (!row || !repo.exists()) throw notFound('Project');
  const reader = new PushReader({ gitBin: deps.git.gitBin, timeoutMs: Math.min(deps.git.timeoutMs, LIST_TIMEOUT_MS) }, repo.dir);
  let ref: string | undefined;
  let target: string | undefined;
  if (req.ref === '') {
    ref = await reader.headRef();
    target = ref ? await reader.refTarget(ref) : undefined;
    if (!ref || !target) return { ref: '', commits: [] };
  } else {
    for (const candidate of refCandidates(req.ref)) {
      target = await reader.refTarget(candidate);
      if (target) {
        ref = candidate;
        break;
      }
    }
    if (!ref || !target) throw notFound('Ref');
  }
  const tip = await reader.peelToCommit(target);
  if (!tip) return { ref, commits: [] };
  const commits = await reader.commits({ tip, exclude: [] }, commitListLimit(req.limit));
  return { ref, commits: commits.reverse().map(toPushCommit) };
}
