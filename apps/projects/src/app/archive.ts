import { withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { forbidden, type Actor } from '@glp/service-kit';
import { archiveChanges, canArchiveProject } from '../domain/archive-rules';
import { recordProjectUpdated } from '../events/project-events';
import { updateArchived } from '../store/archive-store';
import type { ProjectsDeps } from './deps';
import { readableProject, type ReadableProject } from './read-project';
import { reloadProject } from './stars';

/**
 * POST /projects/:id/archive (`archived` true) and /unarchive (false): Owners and administrators (403 otherwise; a
 * project the caller cannot read is 404). Idempotent: a project already in that state is returned unchanged, with no
 * write and no event; a change writes ProjectUpdated (changed = ["archived"]) in the same transaction.
 */
export async function setArchived(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'],
  archived: boolean,
): Promise<ReadableProject> {
  const project = await readableProject(deps, actor, sel);
  if (!canArchiveProject(actor, project.access)) throw forbidden();
  if (!archiveChanges(project.row.archived, archived)) return project;
  const { row } = project;
  await withTransaction(deps.pool, async (client) => {
    if (!(await updateArchived(client, row.id, archived))) return; // a concurrent request made the same change
    await recordProjectUpdated(client, deps.topic, {
      id: row.id, pathWithNamespace: `${row.ns_full_path}/${row.path}`, visibility: row.visibility, archived, changed: ['archived'], repositoryStorage: row.repository_storage,
      markedForDeletionOn: row.marked_for_deletion_on,
    }, actor);
  });
  return reloadProject(deps, actor, project);
}
