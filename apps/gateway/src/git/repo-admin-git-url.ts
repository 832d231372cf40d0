import { randomUUID } from 'node:crypto';
import { signActor, type Actor } from '@glp/service-kit';
import type { GitCommand } from './git-access';

/**
 * repo-admin's git endpoint (its contract: apps/repo-admin/src/domain/git-http-rules.ts `gitRequestUrl` and
 * `signedGitMethod`): the project by id, the git service in the URL, and the caller signed with ACTOR_SECRET for exactly
 * that method, URL and a fresh grant id — the grant names the project, the operation and (by its age) its expiry, and
 * repo-admin takes it once.
 */
export function repoAdminGitUrl(projectId: number, command: GitCommand, advertise: boolean): string {
  return advertise ? `/projects/${projectId}.git/info/refs?service=${command}` : `/projects/${projectId}.git/${command}`;
}

/** The `x-glp-actor` payload and signature of a git grant, and its id (`x-glp-grant-id`). */
export function signGitGrant(actor: Actor, secret: string, method: string, url: string): { payload: string; signature: string; grantId: string } {
  const grantId = randomUUID();
  return { ...signActor(actor, secret, `git-http ${method.toUpperCase()} ${url} ${grantId}`), grantId };
}
