import { notFound, projectMoved, type Actor } from '@glp/service-kit';
import type { projectsV1 } from '@glp/proto';
import { projectFullPath, reachedByOldPath } from '../domain/redirect-rules';
import { shareAccess } from '../domain/sharing-rules';
import { canReadProject, effectiveAccess, type ProjectAccessFacts } from '../domain/visibility';
import { findProjectByFullPath, findProjectById } from '../store/projects-store';
import type { ProjectRow } from '../store/project-rows';
import { findProjectByRedirect } from '../store/redirect-routes-store';
import type { ProjectsDeps } from './deps';
import { groupAccessOf } from './group-access';

export const callerId = (a: Actor) => (a.kind === 'user' ? a.id : 0);

export function accessFacts(r: ProjectRow, groupAccess: number, shareLevel = 0): ProjectAccessFacts {
  return { visibility: r.visibility, memberAccess: r.member_access, namespaceOwnerId: r.ns_owner_id, groupAccess, shareAccess: shareLevel, pendingDelete: r.pending_delete };
}

/** The row's unexpired share links as the domain sees them. */
export const shareLinksOf = (r: ProjectRow) => r.share_links.map((l) => ({ groupId: l.group_id, groupAccess: l.group_access }));

/** The caller's levels in the groups that decide their access to a project: its group namespace and its share links. */
export interface GroupLevels {
  groupAccess: number;
  shareAccess: number;
}

/** Levels for a project, and for the project it is a fork of (whether the caller may see `forked_from_project`). */
export interface ProjectLevels extends GroupLevels {
  source?: GroupLevels;
}

/** The group ids whose levels decide access to a project (or a fork source) of this namespace and share links. */
const groupIdsOf = (nsKind: string, namespaceId: number, links: { group_id: number }[]) => [...(nsKind === 'group' ? [namespaceId] : []), ...links.map((l) => l.group_id)];

/** Levels of a project (or fork source) from the caller's levels per group (`levels`: group id → level). */
export function levelsFrom(levels: ReadonlyMap<number, number>, nsKind: string, namespaceId: number, links: { group_id: number; group_access: number }[]): GroupLevels {
  return {
    groupAccess: nsKind === 'group' ? levels.get(namespaceId) ?? 0 : 0,
    shareAccess: shareAccess(links.map((l) => ({ groupId: l.group_id, groupAccess: l.group_access })), levels),
  };
}

/**
 * The caller's levels in the groups that matter for one project: its group namespace and the groups it is shared
 * with, and the same for its fork source, in ONE identity call (none for a personal-namespace project that is not shared).
 */
export async function projectGroupLevels(deps: ProjectsDeps, actor: Actor, r: ProjectRow): Promise<ProjectLevels> {
  const src = r.fork_source;
  const ids = [...groupIdsOf(r.ns_kind, r.namespace_id, r.share_links), ...(src ? groupIdsOf(src.ns_kind, src.namespace_id, src.share_links) : [])];
  const levels = ids.length ? await groupAccessOf(deps, actor, [...new Set(ids)]) : new Map<number, number>();
  const own = levelsFrom(levels, r.ns_kind, r.namespace_id, r.share_links);
  return src ? { ...own, source: levelsFrom(levels, src.ns_kind, src.namespace_id, src.share_links) } : own;
}

export interface ReadableProject {
  row: ProjectRow;
  /** The caller's access facts, and their levels for the fork source (`source`), when the project is a fork. */
  facts: ProjectAccessFacts & { source?: GroupLevels };
  /** The caller's effective level (0 none). */
  access: number;
}

/**
 * A project the caller may read, with the caller's access, else NOT_FOUND "Project" (unreadable is indistinguishable
 * from missing: GitLab never reveals a hidden project). Group access is asked of identity only for group namespaces and
 * shared projects (one call for both). A full path no live project has follows the redirect routes of renamed or moved
 * projects (GitLab `find_by_full_path(follow_redirects: true)`); a project reached so is, once readable, MOVED with its
 * id (the route's `:id`: 301/405 at the gateway, `find_project!`), unless `followRedirects` (a project named by another
 * param, which GitLab's `project_moved?` leaves alone).
 */
export async function readableProject(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'] | projectsV1.GetProjectRequest['selector'],
  opts: { followRedirects?: boolean } = {},
): Promise<ReadableProject> {
  let row: ProjectRow | undefined;
  if (sel?.$case === 'id') row = await findProjectById(deps.pool, sel.value, callerId(actor));
  else if (sel?.$case === 'fullPath') {
    row = (await findProjectByFullPath(deps.pool, sel.value, callerId(actor))) ?? (await findProjectByRedirect(deps.pool, sel.value, callerId(actor)));
  }
  return readableRow(deps, actor, sel, row, opts);
}

/** readableProject of a row already read (as the caller sees it) for that selector: undefined is NOT_FOUND. */
export async function readableRow(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'] | projectsV1.GetProjectRequest['selector'],
  row: ProjectRow | undefined,
  opts: { followRedirects?: boolean } = {},
): Promise<ReadableProject> {
  if (!row) throw notFound('Project');
  const levels = await projectGroupLevels(deps, actor, row);
  const facts = { ...accessFacts(row, levels.groupAccess, levels.shareAccess), source: levels.source };
  if (!canReadProject(actor, facts)) throw notFound('Project');
  if (sel?.$case === 'fullPath' && !opts.followRedirects && reachedByOldPath(sel.value, projectFullPath(row.ns_full_path, row.path))) {
    throw projectMoved(row.id);
  }
  return { row, facts, access: effectiveAccess(actor, facts) };
}
