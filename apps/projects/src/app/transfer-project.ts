import { isUniqueViolation, withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { DomainError, forbidden, notFound, rejected, type Actor } from '@glp/service-kit';
import { canRemoveProject } from '../domain/deletion-rules';
import { TRANSFER_REASONS, transferFailure, visibilityAfterTransfer } from '../domain/transfer-rules';
import { ACCESS } from '../domain/visibility';
import { recordProjectUpdated } from '../events/project-events';
import { namespaceReplica, upsertNamespace, type NamespaceReplica } from '../store/namespace-replica-store';
import { moveProject, takenInNamespace } from '../store/projects-store';
import type { ProjectsDeps } from './deps';
import { readableProject, type ReadableProject } from './read-project';
import { groupVisibility } from './update-project';

/** The target namespace as identity shows it to the caller, with their level there; 404 Namespace Not Found when hidden. */
async function targetNamespace(deps: ProjectsDeps, sel: projectsV1.TransferProjectRequest['namespace']): Promise<{ ns: NamespaceReplica; callerAccess: number }> {
  const selector = sel?.$case === 'namespacePath' ? { $case: 'fullPath' as const, value: sel.value } : { $case: 'id' as const, value: sel?.$case === 'namespaceId' ? sel.value : 0 };
  try {
    const res = await deps.identity.getNamespace({ selector });
    const ns = namespaceReplica(res.namespace!);
    await upsertNamespace(deps.pool, ns);
    return { ns, callerAccess: res.callerAccessLevel };
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') throw notFound('Namespace');
    throw err;
  }
}

/**
 * PUT /projects/:id/transfer (GitLab's `Projects::TransferService`): Owners and administrators move the project into a
 * namespace where they may create projects (their own, or a group where they are Maintainer or above); GitLab's 400s for
 * the same namespace, no permission there, or a name/path taken; the visibility is lowered to a target group's. One
 * transaction with ProjectUpdated (changed: namespace, and visibility when lowered).
 */
export async function transferProject(deps: ProjectsDeps, actor: Actor, req: projectsV1.TransferProjectRequest): Promise<ReadableProject> {
  const project = await readableProject(deps, actor, req.project?.selector);
  if (!canRemoveProject(actor, project.access)) throw forbidden(); // `change_namespace`: Owners
  const { ns, callerAccess } = await targetNamespace(deps, req.namespace);
  if (ns.id === project.row.namespace_id) throw rejected(transferFailure(TRANSFER_REASONS.sameNamespace));
  const mayCreate = actor.admin || (ns.kind === 'user' ? ns.owner_id === actor.id : callerAccess >= ACCESS.MAINTAINER);
  if (!mayCreate) throw rejected(transferFailure(TRANSFER_REASONS.noPermissionInTarget));
  const visibility = visibilityAfterTransfer(project.row.visibility, ns.kind === 'group' ? await groupVisibility(deps.identity, ns.id) : undefined);
  try {
    await withTransaction(deps.pool, async (client) => {
      const taken = await takenInNamespace(client, ns.id, project.row.name, project.row.path);
      if (taken.name || taken.path) throw rejected(transferFailure(TRANSFER_REASONS.nameTaken));
      await moveProject(client, project.row.id, ns.id, visibility);
      await recordProjectUpdated(client, deps.topic, {
        id: project.row.id, pathWithNamespace: `${ns.full_path}/${project.row.path}`, visibility, archived: project.row.archived,
        changed: visibility === project.row.visibility ? ['namespace'] : ['namespace', 'visibility'],
      }, actor);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw rejected(transferFailure(TRANSFER_REASONS.nameTaken));
    throw err;
  }
  return readableProject(deps, actor, { $case: 'id', value: project.row.id });
}
