import { signActor, type Actor } from '@glp/service-kit';
import type { GitCommand } from './git-access';

/**
 * repo-admin's git endpoint (its contract: apps/repo-admin/src/domain/git-http-rules.ts `gitRequestUrl` and
 * `signedGitMethod`): the project by id, the git service in the URL, and the caller signed with ACTOR_SECRET for exactly
 * that method and URL — the grant names the project, the operation and (by its age) its expiry.
 */
export function repoAdminGitUrl(projectId: number, command: GitCommand, advertise: boolean): string {
  return advertise ? `/projects/${projectId}.git/info/refs?service=${command}` : `/projects/${projectId}.git/${command}`;
}

/** The `x-glp-actor` payload and signature of a git grant. */
export function signGitGrant(actor: Actor, secret: string, method: string, url: string): { payload: string; signature: string } {
  return signActor(actor, secret, `git-http ${method.toUpperCase()} ${url}`);
}
