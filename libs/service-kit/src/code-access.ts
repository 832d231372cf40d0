import type { Actor } from './actor';

/**
 * Who may read and push a project's code — GitLab's `download_code` and `push_code` (`app/policies/project_policy.rb`,
 * with `ProjectFeature#feature_available?` for the repository feature). The gateway checks git over HTTP with them; the
 * projects service decides with the same rule which events a caller sees (push events need `download_code`).
 */

/** The project as the caller sees it (visibility, their level, the repository feature). */
export interface GitProjectView {
  visibility: 'private' | 'internal' | 'public';
  archived: boolean;
  /** The caller's access level (0: none). */
  accessLevel: number;
  /** The repository feature: `disabled`, `private`, `enabled` (or unset = enabled). */
  repositoryAccessLevel: string | undefined;
}

const GUEST = 10;
const REPORTER = 20;
const DEVELOPER = 30;

/** The repository feature is available to the caller (`ProjectFeature#feature_available?`; `private`: members, administrators). */
function repositoryAvailable(actor: Actor, p: GitProjectView): boolean {
  if (p.repositoryAccessLevel === 'disabled') return false;
  if (p.repositoryAccessLevel === 'private') return actor.kind === 'user' && (actor.admin || p.accessLevel >= GUEST);
  return true;
}

/** GitLab's `public_access` on a project: public, or internal to a signed-in user who is not external. */
function publicAccess(actor: Actor, p: GitProjectView): boolean {
  return p.visibility === 'public' || (p.visibility === 'internal' && actor.kind === 'user' && !actor.external);
}

/** `download_code`: Reporter and above, administrators, or anyone who reads a public/internal project — repository available. */
export function canDownloadCode(actor: Actor, p: GitProjectView): boolean {
  if (!repositoryAvailable(actor, p)) return false;
  if (actor.kind === 'user' && (actor.admin || p.accessLevel >= REPORTER)) return true;
  return publicAccess(actor, p);
}

/** `push_code`: Developer and above or administrators, on a project that is not archived, repository available. */
export function canPushCode(actor: Actor, p: GitProjectView): boolean {
  if (actor.kind !== 'user' || p.archived || !repositoryAvailable(actor, p)) return false;
  return actor.admin || p.accessLevel >= DEVELOPER;
}
