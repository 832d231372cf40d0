import type { projectsV1 } from '@glp/proto';
import { canDownloadCode, type Actor } from '@glp/service-kit';
import { actionName, eventListFilter, type EventListInput, type PushPayload } from '../domain/project-event-rules';
import { listProjectEvents as listEventRows } from '../store/project-events-store';
import type { UserReplica } from '../store/users-replica-store';
import type { ProjectsDeps } from './deps';
import { fetchMissingUsers } from './project-members';
import { readableProject } from './read-project';

/** An event as the API shows it (GitLab's `Entities::Event` of this system's events). */
export interface EventView {
  id: number;
  projectId: number;
  actionName: string;
  authorId: number;
  /** Undefined when identity no longer knows the author. */
  author?: UserReplica;
  createdAt: Date;
  push: PushPayload | null;
}

export interface EventsInput extends EventListInput {
  page: number;
  perPage: number;
}

/**
 * GET /projects/:id/events: whoever may read the project (anonymous callers too, for a public one; else NOT_FOUND
 * "Project"). Push events only to a caller who may read its code (`download_code`, as for git: the repository feature,
 * Reporter on a private project); they are left out of the count too, so pages are full and the total is what the
 * caller may see. Authors come with the page from the users read model; those it lacks are asked of identity.
 */
export async function listProjectEvents(
  deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], input: EventsInput,
): Promise<{ events: EventView[]; total: number }> {
  const { row, access } = await readableProject(deps, actor, sel);
  const canReadCode = canDownloadCode(actor, {
    visibility: row.visibility, archived: row.archived, accessLevel: access, repositoryAccessLevel: row.settings.repositoryAccessLevel,
  });
  const filter = eventListFilter(input, canReadCode);
  const { rows, total } = await listEventRows(deps.pool, row.id, filter, {
    limit: input.perPage, offset: (input.page - 1) * input.perPage, countLimit: deps.countLimit,
  });
  const missing = [...new Set(rows.filter((r) => !r.author).map((r) => r.author_id))];
  const fetched = missing.length ? await fetchMissingUsers(deps, missing) : new Map<number, UserReplica>();
  const imported = row.import_source !== null;
  const events = rows.map((r) => ({
    id: r.id, projectId: r.project_id, actionName: actionName(r.action, r.push, imported), authorId: r.author_id,
    author: r.author ?? fetched.get(r.author_id), createdAt: r.created_at, push: r.push,
  }));
  return { events, total };
}
