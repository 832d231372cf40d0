import type { repoAdminV1 } from '@glp/proto';
import { notFound, type Actor } from '@glp/service-kit';
import type { RepoAdminDeps } from './deps';

/** A project as the caller sees it, with what uploads and avatars need to know of it. */
export interface UploadProject {
  id: number;
  /** The caller's effective access level (0 none). */
  accessLevel: number;
  creatorId: number;
  /** The project's avatar as projects records it ("<secret>/<file name>"), empty when none. */
  avatar: string;
}

/**
 * The project `ref` names, asked of projects AS THE CALLER (NOT_FOUND `404 Project Not Found` when the caller may not
 * read it, `moved` for an old path, relayed unchanged): GitLab's `user_project` before every upload endpoint.
 */
export async function projectForUploads(
  deps: Pick<RepoAdminDeps, 'projects'>, actor: Actor, ref: repoAdminV1.ProjectRef | undefined,
): Promise<UploadProject> {
  if (!ref?.selector) throw notFound('Project');
  const { project } = await deps.projects.getProject({ selector: ref.selector, withCustomAttributes: false, statistics: false }, { actor });
  if (!project) throw notFound('Project');
  return { id: project.id, accessLevel: project.callerAccessLevel, creatorId: project.creatorId, avatar: project.settings?.avatar ?? '' };
}
