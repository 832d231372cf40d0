import { notFound, type Actor } from '@glp/service-kit';
import type { projectsV1 } from '@glp/proto';
import { shareAccess } from '../domain/sharing-rules';
import { canReadProject, effectiveAccess, type ProjectAccessFacts } from '../domain/visibility';
import { findProjectByFullPath, findProjectById } from '../store/projects-store';
import type { ProjectRow } from '../store/project-rows';
import type { ProjectsDeps } from './deps';
import { groupAccessOf } from './group-access';

export const callerId = (a: Actor) => (a.kind === 'user' ? a.id : 0);

export function accessFacts(r: ProjectRow, groupAccess: number, shareLevel = 0): ProjectAccessFacts {
  return { visibility: r.visibility, memberAccess: r.member_access, namespaceOwnerId: r.ns_owner_id, groupAccess, shareAccess: shareLevel, pendingDelete: r.pending_delete };
}

/** The row's unexpired share links as the domain sees them. */
export const shareLinksOf = (r: ProjectRow) => r.share_links.map((l) => ({ groupId: l.group_id, groupAccess: l.group_access }));

/**
 * The caller's levels in the groups that matter for one project: its group namespace and the groups it is shared
 * with, in ONE identity call (none for a personal-namespace project that is not shared).
 */
export async function projectGroupLevels(deps: ProjectsDeps, actor: Actor, r: ProjectRow): Promise<{ groupAccess: number; shareAccess: number }> {
  const ids = [...(r.ns_kind === 'group' ? [r.namespace_id] : []), ...r.share_links.map((l) => l.group_id)];
  const levels = ids.length ? await groupAccessOf(deps.identity, actor, [...new Set(ids)]) : new Map<number, number>();
  return { groupAccess: r.ns_kind === 'group' ? levels.get(r.namespace_id) ?? 0 : 0, shareAccess: shareAccess(shareLinksOf(r), levels) };
}

export interface ReadableProject {
  row: ProjectRow;
  facts: ProjectAccessFacts;
  /** The caller's effective level (0 none). */
  access: number;
}

/**
 * A project the caller may read, with the caller's access, else NOT_FOUND "Project" (unreadable is indistinguishable
 * from missing: GitLab never reveals a hidden project). Group access is asked of identity only for group namespaces and
 * shared projects (one call for both).
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
  const levels = await projectGroupLevels(deps, actor, row);
  const facts = accessFacts(row, levels.groupAccess, levels.shareAccess);
  if (!canReadProject(actor, facts)) throw notFound('Project');
  return { row, facts, access: effectiveAccess(actor, facts) };
}
