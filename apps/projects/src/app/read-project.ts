import { notFound, type Actor } from '@glp/service-kit';
import type { projectsV1 } from '@glp/proto';
import { canReadProject, effectiveAccess, type ProjectAccessFacts } from '../domain/visibility';
import { findProjectByFullPath, findProjectById } from '../store/projects-store';
import type { ProjectRow } from '../store/project-rows';
import type { ProjectsDeps } from './deps';
import { groupAccessOf } from './group-access';

export const callerId = (a: Actor) => (a.kind === 'user' ? a.id : 0);

export function accessFacts(r: ProjectRow, groupAccess: number): ProjectAccessFacts {
  return { visibility: r.visibility, memberAccess: r.member_access, namespaceOwnerId: r.ns_owner_id, groupAccess, pendingDelete: r.pending_delete };
}

export interface ReadableProject {
  row: ProjectRow;
  facts: ProjectAccessFacts;
  /** The caller's effective level (0 none). */
  access: number;
}

/**
 * A project the caller may read, with the caller's access, else NOT_FOUND "Project" (unreadable is indistinguishable
 * from missing: GitLab never reveals a hidden project). Group access is asked of identity only for group namespaces.
 */
export async function readableProject(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'] | projectsV1.GetProjectRequest['selector'],
): Promise<ReadableProject> {
  let row: ProjectRow | undefined;
  if (sel?.$case === 'id') row = await findProjectById(deps.pool, sel.value, callerId(actor));
  else if (sel?.$case === 'fullPath') row = await findProjectByFullPath(deps.pool, sel.value, callerId(actor));
  if (!row) throw notFound('Project');
  const groupAccess = row.ns_kind === 'group' ? (await groupAccessOf(deps.identity, actor, [row.namespace_id])).get(row.namespace_id) ?? 0 : 0;
  const facts = accessFacts(row, groupAccess);
  if (!canReadProject(actor, facts)) throw notFound('Project');
  return { row, facts, access: effectiveAccess(actor, facts) };
}
