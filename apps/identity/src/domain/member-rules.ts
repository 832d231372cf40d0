import type { FieldErrors } from '@glp/service-kit';
import { ACCESS, accessLevelName, GROUP_MEMBER_LEVELS } from './access-levels';

/** GitLab's Member validations for a group membership: a known level, not below an inherited one, no past expiry. */
export function memberErrors(
  m: { accessLevel: number; expiresAt: string | null },
  context: { inherited?: { level: number; groupName: string }; today: string },
): FieldErrors {
  const errors: FieldErrors = {};
  if (!GROUP_MEMBER_LEVELS.includes(m.accessLevel)) errors.access_level = ['is not included in the list'];
  else if (context.inherited && m.accessLevel < context.inherited.level) {
    errors.access_level = [
      `should be greater than or equal to ${accessLevelName(context.inherited.level)} inherited membership from group ${context.inherited.groupName}`,
    ];
  }
  if (m.expiresAt !== null && m.expiresAt <= context.today) errors.expires_at = ['cannot be a date in the past'];
  return errors;
}

/** Removing or demoting this member would leave a top-level group without an Owner (GitLab refuses: 403). */
export function wouldOrphanGroup(m: { currentLevel: number; newLevel: number }, group: { isTopLevel: boolean; owners: number }): boolean {
  return group.isTopLevel && m.currentLevel === ACCESS.OWNER && m.newLevel < ACCESS.OWNER && group.owners <= 1;
}

/**
 * Why PUT /groups/:id/members/:user_id is refused, in GitLab's order (`lib/api/members.rb`): the member is looked up
 * first (`source_members(source).find_by!(user_id:)`: 404 "Not found" for a user who is not a member, whoever asks),
 * then `authorize_update_source_member!` (403 for a caller who may not administer the group's members).
 */
export function memberUpdateRefusal(callerCanAdmin: boolean, member: { level: number } | undefined): 'not_found' | 'forbidden' | undefined {
  if (!member) return 'not_found';
  return callerCanAdmin ? undefined : 'forbidden';
}

/** A membership's expiry as stored: "" or "none" clear it; otherwise YYYY-MM-DD. */
export function normalizeExpiry(value: string): string | null {
  return value === '' || value === 'none' ? null : value;
}
