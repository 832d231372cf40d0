import { isUniqueViolation, withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { DomainError, forbidden, invalid, notFound, unauthenticated, type Actor } from '@glp/service-kit';
import { allowedSettings, mayEdit, needsGroupVisibility, planProjectEdit, type EditableProject, type ProjectEdit } from '../domain/project-edit';
import { effectiveAccess, VISIBILITY_LEVELS, type VisibilityLevel } from '../domain/visibility';
import { avatarErrors, withAvatarErrors } from '../domain/avatar-rules';
import { projectFullPath, redirectLeftBy } from '../domain/redirect-rules';
import { recordProjectUpdated } from '../events/project-events';
import { lockProjectForEdit, takenByOtherProject, updateProjectAttributes } from '../store/projects-store';
import { recordProjectRoute } from '../store/redirect-routes-store';
import type { ProjectRow } from '../store/project-rows';
import type { IdentityClient, ProjectsDeps } from './deps';
import { storeImportSource, vetImport } from './import-source';
import { planImportEdit } from '../domain/import-rules';
import { findImportSource } from '../store/import-sources-store';
import { accessFacts, callerId, readableProject, type ReadableProject } from './read-project';

const editable = (r: ProjectRow): EditableProject => ({
  name: r.name, path: r.path, description: r.description, visibility: r.visibility, defaultBranch: r.default_branch,
  topics: r.topics, settings: r.settings,
});

/**
 * The visibility of a group, asked of identity as the caller. A group the caller cannot read is private to them
 * (GitLab hides only private groups, and internal ones from external users), which is the strictest bound.
 */
export async function groupVisibility(identity: IdentityClient, groupId: number): Promise<VisibilityLevel> {
  try {
    const { group } = await identity.getGroup({ group: { selector: { $case: 'id', value: groupId } } });
    return VISIBILITY_LEVELS.find((v) => v === group?.visibility) ?? 'private';
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') return 'private';
    throw err;
  }
}

/**
 * PUT /projects/:id (GitLab's `Projects::UpdateService`): a project the caller can read (else NOT_FOUND), Maintainer to
 * edit and Owner to send a visibility (else FORBIDDEN; administrators always), Owner-only settings dropped silently,
 * then — on the row locked in one transaction — validation (INVALID with every field problem) and the changed columns
 * with ProjectUpdated in the outbox, only when something changed. Archived projects can be edited, as in GitLab (its
 * archived policy takes repository and issue writes away, not `admin_project`). Returns the project as it is now.
 */
export async function updateProject(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'],
  edit: ProjectEdit,
  /** A multipart `avatar` sent along: validated with the edit (its bytes are stored afterwards, SetProjectAvatar). */
  avatar?: projectsV1.AvatarFile,
): Promise<ReadableProject> {
  if (actor.kind !== 'user') throw unauthenticated();
  const project = await readableProject(deps, actor, sel);
  if (!mayEdit(actor, project.access, edit)) throw forbidden();
  const allowed: ProjectEdit = { ...edit, settings: allowedSettings(actor, project.access, edit.settings) };
  const bound = needsGroupVisibility(editable(project.row), project.row.ns_kind, allowed)
    ? await groupVisibility(deps.identity, project.row.namespace_id)
    : undefined;
  const id = project.row.id;
  // A new import URL passes GitLab's model validation (outbound URL rules) before anything is written.
  const vettedUrl = edit.importUrl !== undefined ? (await vetImport(deps, edit.importUrl, undefined)).url : undefined;
  let row: ProjectRow;
  try {
    row = await withTransaction(deps.pool, async (client) => {
      const current = await lockProjectForEdit(client, id, callerId(actor));
      if (!current || current.pending_delete) throw notFound('Project');
      const taken = await takenByOtherProject(client, current.namespace_id, id, allowed.name ?? null, allowed.path ?? null);
      const plan = withAvatarErrors(avatar ? avatarErrors(avatar) : [], () => planProjectEdit(editable(current), allowed, { taken, groupVisibility: bound }));
      const source = await findImportSource(client, id);
      const importEdit = planImportEdit(source, { url: vettedUrl, mirror: edit.mirror }, actor.id);
      if (importEdit.kind === 'invalid') throw invalid(importEdit.errors);
      if (importEdit.kind === 'changed') {
        const url = importEdit.url ?? deps.secretBox!.open(source!.urlSealed);
        await storeImportSource(deps, client, id, { url, mirror: importEdit.mirror });
        plan.changed.push(...importEdit.changed);
      }
      if (plan.changed.length === 0) return current;
      await updateProjectAttributes(client, id, plan.patch);
      const updated = (await lockProjectForEdit(client, id, callerId(actor)))!;
      if (plan.patch.path !== undefined) {
        // GitLab's Route callbacks: the old path leads here (301/405), redirects at the new one go.
        await recordProjectRoute(client, id, redirectLeftBy(projectFullPath(current.ns_full_path, current.path), projectFullPath(updated.ns_full_path, updated.path)));
      }
      await recordProjectUpdated(client, deps.topic, {
        id, pathWithNamespace: `${updated.ns_full_path}/${updated.path}`, visibility: updated.visibility, archived: updated.archived,
        changed: plan.changed, markedForDeletionOn: updated.marked_for_deletion_on, repositoryStorage: updated.repository_storage,
      }, actor);
      return updated;
    });
  } catch (err) {
    // A concurrent edit or create took the name or path first: the unique index speaks.
    if (isUniqueViolation(err, 'projects_namespace_path_key')) throw invalid({ path: ['has already been taken'] });
    if (isUniqueViolation(err, 'projects_namespace_name_key')) throw invalid({ name: ['has already been taken'] });
    throw err;
  }
  const facts = accessFacts(row, project.facts.groupAccess, project.facts.shareAccess);
  return { row, facts, access: effectiveAccess(actor, facts) };
}
