import { withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { conflict, DomainError, forbidden, notFound, systemActor, type Actor } from '@glp/service-kit';
import { normalizeExpiry } from '../domain/member-rules';
import { mayShareAt, SHARE_FAILURES, shareFailure } from '../domain/sharing-rules';
import { ACCESS } from '../domain/visibility';
import { recordProjectShared, recordProjectUnshared } from '../events/project-events';
import { namespaceReplica, upsertNamespace } from '../store/namespace-replica-store';
import { deleteGroupLink, groupLinksOf, insertGroupLink, selfAndAncestorIds, type ProjectGroupLinkRow } from '../store/sharing-store';
import type { ProjectsDeps } from './deps';
import { readableProject, type ReadableProject } from './read-project';

const SERVICE = systemActor('projects');

/**
 * What `notFound` carries when the group to share with is missing or hidden from the caller: GitLab's service answers
 * `error('Not Found', 404)`, rendered `{"message":"Not Found"}` (not the usual "404 Group Not Found").
 */
export const SHARE_GROUP_NOT_FOUND = 'share-group';

/** GitLab's `admin_project` (Maintainer and above, administrators). */
export function requireAdminProject(actor: Actor, project: ReadableProject): void {
  if (!actor.admin && project.access < ACCESS.MAINTAINER) throw forbidden();
}

/** The group as identity shows it to the caller (GitLab's `read_namespace`), kept in the namespaces read model. */
async function readableGroup(deps: ProjectsDeps, groupId: number): Promise<void> {
  try {
    await deps.identity.getGroup({ group: { selector: { $case: 'id', value: groupId } } });
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') throw notFound(SHARE_GROUP_NOT_FOUND);
    throw err;
  }
  // Its name and full path for `shared_with_groups`, should its NamespaceChanged event not have arrived yet.
  const { namespace } = await deps.identity.getNamespace({ selector: { $case: 'id', value: groupId } }, { actor: SERVICE });
  if (namespace) await upsertNamespace(deps.pool, namespaceReplica(namespace));
}

/**
 * POST /projects/:id/share (`Projects::GroupLinks::CreateService`): Maintainers; sharing at Owner needs an Owner (403);
 * the group must be readable by the caller (404 "Not Found"); the project's own group or an ancestor, or a group
 * already linked, is GitLab's 409. One transaction with ProjectShared.
 */
export async function shareProject(deps: ProjectsDeps, actor: Actor, req: projectsV1.ShareProjectRequest): Promise<ProjectGroupLinkRow> {
  const project = await readableProject(deps, actor, req.project?.selector);
  requireAdminProject(actor, project);
  if (!mayShareAt(actor, project.access, req.groupAccess)) throw forbidden();
  await readableGroup(deps, req.groupId);
  const own = project.row.ns_kind === 'group' ? await selfAndAncestorIds(deps.pool, project.row.namespace_id) : [];
  const failure = shareFailure(req.groupId, own, (await groupLinksOf(deps.pool, project.row.id)).map((l) => l.group_id));
  if (failure) throw conflict(failure);
  const expiresAt = normalizeExpiry(req.expiresAt);
  return withTransaction(deps.pool, async (client) => {
    const link = await insertGroupLink(client, {
      projectId: project.row.id, groupId: req.groupId, groupAccess: req.groupAccess, expiresAt, createdBy: actor.kind === 'user' ? actor.id : null,
    });
    if (!link) throw conflict(SHARE_FAILURES.alreadyShared); // a concurrent share won
    await recordProjectShared(client, deps.topic, { projectId: link.project_id, groupId: link.group_id, groupAccess: link.group_access, expiresAt: link.expires_at }, actor);
    return link;
  });
}

/** DELETE /projects/:id/share/:group_id: Maintainers; no link is 404 Group Link Not Found. One transaction with ProjectUnshared. */
export async function unshareProject(deps: ProjectsDeps, actor: Actor, req: projectsV1.UnshareProjectRequest): Promise<void> {
  const project = await readableProject(deps, actor, req.project?.selector);
  requireAdminProject(actor, project);
  await withTransaction(deps.pool, async (client) => {
    if (!(await deleteGroupLink(client, project.row.id, req.groupId))) throw notFound('Group Link');
    await recordProjectUnshared(client, deps.topic, { projectId: project.row.id, groupId: req.groupId }, actor);
  });
}
