import { withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { forbidden, invalid, notFound, unauthenticated, type Actor } from '@glp/service-kit';
import { isAvatarRef, maySetAvatar } from '../domain/avatar-rules';
import { effectiveAccess } from '../domain/visibility';
import { recordProjectUpdated } from '../events/project-events';
import { lockProjectForEdit, updateProjectAttributes } from '../store/projects-store';
import type { ProjectsDeps } from './deps';
import { accessFacts, callerId, readableProject, type ReadableProject } from './read-project';

/**
 * Records which stored file (repo-admin's `"<secret>/<file name>"`, empty: none) is the project's avatar — the last step
 * of PUT /projects/:id or POST /projects with a multipart `avatar`, after the edit was validated (Avatarable's rules, in
 * UpdateProject / CreateProject) and the bytes stored. Maintainers, administrators or the project's creator; on the
 * row locked, with ProjectUpdated (`changed: ["avatar"]`) when it changes. Returns the project as it is now.
 */
export async function setProjectAvatar(
  deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], avatar: string,
): Promise<ReadableProject> {
  if (actor.kind !== 'user') throw unauthenticated();
  if (!isAvatarRef(avatar)) throw invalid({ avatar: ['is invalid'] });
  const project = await readableProject(deps, actor, sel);
  if (!maySetAvatar(actor, project.access, project.row.creator_id)) throw forbidden();
  const id = project.row.id;
  const row = await withTransaction(deps.pool, async (client) => {
    const current = await lockProjectForEdit(client, id, callerId(actor));
    if (!current || current.pending_delete) throw notFound('Project');
    if ((current.settings.avatar ?? '') === avatar) return current;
    await updateProjectAttributes(client, id, { settings: { avatar } });
    const updated = (await lockProjectForEdit(client, id, callerId(actor)))!;
    await recordProjectUpdated(client, deps.topic, {
      id, pathWithNamespace: `${updated.ns_full_path}/${updated.path}`, visibility: updated.visibility, archived: updated.archived,
      changed: ['avatar'], markedForDeletionOn: updated.marked_for_deletion_on, repositoryStorage: updated.repository_storage,
    }, actor);
    return updated;
  });
  const facts = accessFacts(row, project.facts.groupAccess, project.facts.shareAccess);
  return { row, facts, access: effectiveAccess(actor, facts) };
}
