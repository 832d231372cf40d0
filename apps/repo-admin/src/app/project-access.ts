import type { repoAdminV1 } from '@glp/proto';
import { notFound, type Actor } from '@glp/service-kit';
import type { RepoAdminDeps } from './deps';

/** A project as the caller sees it: its id and the caller's effective access level (0 none). */
export interface ProjectSeen {
  id: number;
  accessLevel: number;
}

/**
 * The project `ref` names (`:id`: id or full path), asked of projects AS THE CALLER: projects decides whether the caller
 * may see it (NOT_FOUND `404 Project Not Found` otherwise, or `moved` for an old path, relayed unchanged) and what the
 * caller's access is. repo-admin owns the repositories, not the permissions.
 */
export async function projectAsSeenBy(deps: Pick<RepoAdminDeps, 'projects'>, actor: Actor, ref: repoAdminV1.ProjectRef | undefined): Promise<ProjectSeen> {
  if (!ref?.selector) throw notFound('Project');
  const { project } = await deps.projects.getProject({ selector: ref.selector, withCustomAttributes: false, statistics: false }, { actor });
  if (!project) throw notFound('Project');
  return { id: project.id, accessLevel: project.callerAccessLevel };
}
