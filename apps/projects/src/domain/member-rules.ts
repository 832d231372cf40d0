import type { Actor, FieldErrors } from '@glp/service-kit';
import { ACCESS } from './visibility';

/** The levels a project membership may be given through the API (Owner is for groups; spec 2.1). */
export const PROJECT_MEMBER_LEVELS: readonly number[] = [ACCESS.GUEST, ACCESS.REPORTER, ACCESS.DEVELOPER, ACCESS.MAINTAINER];

const NAMES: Record<number, string> = { 5: 'Minimal Access', 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

/** GitLab's Member validations for a project membership: a known level, not below an inherited group one, no past expiry. */
export function projectMemberErrors(
  m: { accessLevel: number; expiresAt: string | null },
  context: { inherited?: { level: number; groupName: string }; today: string },
): FieldErrors {
  const errors: FieldErrors = {};
  if (!PROJECT_MEMBER_LEVELS.includes(m.accessLevel)) errors.access_level = ['is not included in the list'];
  else if (context.inherited && m.accessLevel < context.inherited.level) {
    errors.access_level = [
      `should be greater than or equal to ${NAMES[context.inherited.level] ?? context.inherited.level} inherited membership from group ${context.inherited.groupName}`,
    ];
  }
  if (m.expiresAt !== null && m.expiresAt <= context.today) errors.expires_at = ['cannot be a date in the past'];
  return errors;
}

/**
 * GitLab's `admin_project_member` (Maintainer and above) with its Owner guard: only an Owner (or an administrator)
 * may change or remove an Owner's membership. A member may always remove themselves, except the personal namespace owner.
 */
export function canManageMember(actor: Actor, callerAccess: number, target: { userId: number; level: number }): boolean {
  if (actor.admin) return true;
  if (actor.kind !== 'user' || callerAccess < ACCESS.MAINTAINER) return false;
  return target.level < ACCESS.OWNER || callerAccess >= ACCESS.OWNER;
}

/**
 * Why PUT /projects/:id/members/:user_id is refused, in GitLab's order (`lib/api/members.rb`): the member is looked up
 * first (`source_members(source).find_by!`: 404 "Not found" for a user who is not a member, whoever asks), then
 * `authorize_update_source_member!` (403).
 */
export function memberUpdateRefusal(actor: Actor, callerAccess: number, member: { userId: number; level: number } | undefined): 'not_found' | 'forbidden' | undefined {
  if (!member) return 'not_found';
  return canManageMember(actor, callerAccess, member) ? undefined : 'forbidden';
}

/** A membership's expiry as stored: "" or "none" clear it; otherwise YYYY-MM-DD. */
export function normalizeExpiry(value: string): string | null {
  return value === '' || value === 'none' ? null : value;
}
