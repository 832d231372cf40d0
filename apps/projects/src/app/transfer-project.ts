import { isUniqueViolation, withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { forbidden, rejected, type Actor } from '@glp/service-kit';
import { canRemoveProject } from '../domain/deletion-rules';
import { TRANSFER_REASONS, transferFailure, visibilityAfterTransfer } from '../domain/transfer-rules';
import { projectFullPath, redirectLeftBy } from '../domain/redirect-rules';
import { recordProjectUpdated } from '../events/project-events';
import { moveProject, takenInNamespace } from '../store/projects-store';
import { recordProjectRoute } from '../store/redirect-routes-store';
import type { ProjectsDeps } from './deps';
import { mayCreateIn, visibleNamespace } from './namespace-resolver';
import { readableProject, type ReadableProject } from './read-project';
import { groupVisibility } from './update-project';

/**
 * PUT /projects/:id/transfer (GitLab's `Projects::TransferService`): Owners and administrators move the project into a
 * namespace where they may create projects (their own, or a group where they are Maintainer or above); GitLab's 400s for
 * the same namespace, no permission there, or a name/path taken; the visibility is lowered to a target group's. One
 * transaction with ProjectUpdated (changed: namespace, and visibility when lowered).
 */
export async function transferProject(deps: ProjectsDeps, actor: Actor, req: projectsV1.TransferProjectRequest): Promise<ReadableProject> {
  const project = await readableProject(deps, actor, req.project?.selector);
  if (!canRemoveProject(actor, project.access)) throw forbidden(); // `change_namespace`: Owners
  const { ns, callerAccess } = await visibleNamespace(deps, req.namespace);
  if (ns.id === project.row.namespace_id) throw rejected(transferFailure(TRANSFER_REASONS.sameNamespace));
  if (!mayCreateIn(actor, ns, callerAccess)) throw rejected(transferFailure(TRANSFER_REASONS.noPermissionInTarget));
  const visibility = visibilityAfterTransfer(project.row.visibility, ns.kind === 'group' ? await groupVisibility(deps.identity, ns.id) : undefined);
  try {
    await withTransaction(deps.pool, async (client) => {
      const taken = await takenInNamespace(client, ns.id, project.row.name, project.row.path);
      if (taken.name || taken.path) throw rejected(transferFailure(TRANSFER_REASONS.nameTaken));
      await moveProject(client, project.row.id, ns.id, visibility);
      // GitLab's Route callbacks: the old full path leads here (301/405), redirects at the new one go.
      await recordProjectRoute(client, project.row.id, redirectLeftBy(projectFullPath(project.row.ns_full_path, project.row.path), projectFullPath(ns.full_path, project.row.path)));
      await recordProjectUpdated(client, deps.topic, {
        id: project.row.id, pathWithNamespace: `${ns.full_path}/${project.row.path}`, visibility, archived: project.row.archived,
        changed: visibility === project.row.visibility ? ['namespace'] : ['namespace', 'visibility'], repositoryStorage: project.row.repository_storage,
      }, actor);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw rejected(transferFailure(TRANSFER_REASONS.nameTaken));
    throw err;
  }
  return readableProject(deps, actor, { $case: 'id', value: project.row.id });
}
