import type { Actor } from '@glp/service-kit';

/** How much of a user a caller sees (GitLab's entity choice on GET /users/:id). */
export type UserView = 'admin' | 'self' | 'public' | 'private';

/**
 * GitLab's `read_user` and entity choice: administrators see everything (UserWithAdmin); a user sees their own full
 * profile (UserPublic); others see the public profile (User), or only the basics of a private profile; blocked users
 * are hidden from non-administrators (undefined).
 */
export function userView(caller: Actor, target: { id: number; state: string; private_profile: boolean }): UserView | undefined {
  if (caller.admin) return 'admin';
  if (target.state === 'blocked') return undefined;
  if (caller.kind === 'user' && caller.id === target.id) return 'self';
  return target.private_profile ? 'private' : 'public';
}

/** Which changes to a user alter what their tokens may do (the gateways' cached answers must go). */
export function changesAuthorization(before: { is_admin: boolean; external: boolean; state: string; username: string }, after: typeof before): boolean {
  return before.is_admin !== after.is_admin || before.external !== after.external || before.state !== after.state || before.username !== after.username;
}
