import { isForeignKeyViolation, withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { notFound, notModified, unauthenticated, type Actor } from '@glp/service-kit';
import { canStar, parseStarrerSearch } from '../domain/star-rules';
import { recordProjectStarred } from '../events/project-events';
import { findProjectById } from '../store/projects-store';
import { deleteStar, insertStar, listStars } from '../store/stars-store';
import type { UserReplica } from '../store/users-replica-store';
import type { ProjectsDeps } from './deps';
import { fetchMissingUsers } from './project-members';
import { accessFacts, callerId, readableProject, type ReadableProject } from './read-project';

/** A starrer as the API shows it (GitLab's `UserStarsProject`): the user and when they starred. */
export interface StarrerView {
  user: UserReplica;
  starredSince: Date;
}

/**
 * The project as the caller sees it right after a change of theirs: the row read again (star count, archived,
 * updated_at), with the group access already asked of identity for this request (a change here does not alter it).
 */
export async function reloadProject(deps: ProjectsDeps, actor: Actor, project: ReadableProject): Promise<ReadableProject> {
  const row = await findProjectById(deps.pool, project.row.id, callerId(actor));
  if (!row) throw notFound('Project');
  return { row, facts: accessFacts(row, project.facts.groupAccess, project.facts.shareAccess), access: project.access };
}

/** POST /projects/:id/star (star) and /unstar (unstar), as the caller; NOT_MODIFIED when nothing changes. */
async function setStar(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], starred: boolean): Promise<ReadableProject> {
  if (!canStar(actor)) throw unauthenticated();
  const project = await readableProject(deps, actor, sel);
  // The starrer in the users read model now, so that starrer searches find them.
  if (starred) await fetchMissingUsers(deps, [actor.id]);
  await withTransaction(deps.pool, async (client) => {
    const starCount = starred ? await insertStar(client, project.row.id, actor.id) : await deleteStar(client, project.row.id, actor.id);
    if (starCount === undefined) throw notModified(); // already starred / not starred: GitLab's 304
    await recordProjectStarred(client, deps.topic, { projectId: project.row.id, userId: actor.id, starred, starCount }, actor);
  }).catch((err: unknown) => {
    // Deleted between the read above and the star (a concurrent DELETE): the project is gone, not a server error.
    if (isForeignKeyViolation(err)) throw notFound('Project');
    throw err;
  });
  return reloadProject(deps, actor, project);
}

/** POST /projects/:id/star: any signed-in user who may read the project; already starred is NOT_MODIFIED. */
export function starProject(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector']): Promise<ReadableProject> {
  return setStar(deps, actor, sel, true);
}

/** POST /projects/:id/unstar: any signed-in user who may read the project; not starred is NOT_MODIFIED. */
export function unstarProject(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector']): Promise<ReadableProject> {
  return setStar(deps, actor, sel, false);
}

export interface StarrersInput {
  search: string;
  page: number;
  perPage: number;
}

/**
 * GET /projects/:id/starrers: anyone who may read the project (anonymous callers too, for a public one). A page of
 * starrers and their total; users the read model lacks are asked of identity (a user identity no longer has is left out).
 */
export async function listStarrers(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'],
  input: StarrersInput,
): Promise<{ starrers: StarrerView[]; total: number }> {
  const { row } = await readableProject(deps, actor, sel);
  const { rows, total } = await listStars(deps.pool, row.id, {
    search: parseStarrerSearch(input.search), limit: input.perPage, offset: (input.page - 1) * input.perPage,
  });
  const fetched = await fetchMissingUsers(deps, rows.filter((r) => !r.user).map((r) => r.user_id));
  const starrers = rows.flatMap((r) => {
    const user = r.user ?? fetched.get(r.user_id);
    return user ? [{ user, starredSince: r.created_at }] : [];
  });
  return { starrers, total };
}
