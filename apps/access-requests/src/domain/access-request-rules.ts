import type { Actor, FieldErrors } from '@glp/service-kit';

export type SourceKind = 'group' | 'project';

export const ACCESS = { DEVELOPER: 30, MAINTAINER: 40, OWNER: 50 } as const;

/** What the owning service told us about the source, as seen by the caller. */
export interface SourceFacts {
  kind: SourceKind;
  id: number;
  /** The caller's effective access to the source (0 none). */
  callerAccess: number;
  requestAccessEnabled: boolean;
}

/** GitLab's `admin_project_member` (Maintainer) for projects, `admin_group_member` (Owner) for groups. */
export function canManageRequests(actor: Actor, s: SourceFacts): boolean {
  if (actor.admin) return true;
  return actor.kind === 'user' && s.callerAccess >= (s.kind === 'group' ? ACCESS.OWNER : ACCESS.MAINTAINER);
}

/**
 * Why the caller may not request access (GitLab answers 403), or undefined when they may. GitLab's policies
 * (`app/policies/project_policy.rb`, `group_policy.rb`): `rule { owner | admin | guest | group_member | group_requester }
 * .prevent :request_access` — an administrator never requests access, members of any level neither.
 */
export function requestRefusal(actor: Actor, s: SourceFacts): string | undefined {
  if (actor.kind !== 'user') return 'not signed in';
  if (actor.admin) return 'an administrator';
  if (s.callerAccess > 0) return 'already a member';
  if (!s.requestAccessEnabled) return 'access requests are disabled';
  return undefined;
}

/** A requester may withdraw their own request; managers may deny any. */
export function canDeny(actor: Actor, s: SourceFacts, requesterId: number): boolean {
  return (actor.kind === 'user' && actor.id === requesterId) || canManageRequests(actor, s);
}

/**
 * Why approving or denying a request is refused, in GitLab's order (`lib/api/access_requests.rb`): the requester is
 * looked up first (`source.requesters.find_by!(user_id:)`: 404 "Not found" for a user without a request, whoever asks),
 * then Members::ApproveAccessRequestService / Members::DestroyService check the caller (403).
 */
export function decisionRefusal(callerMayDecide: boolean, requestExists: boolean): 'not_found' | 'forbidden' | undefined {
  if (!requestExists) return 'not_found';
  if (!callerMayDecide) return 'forbidden';
  return undefined;
}

const GROUP_LEVELS = [10, 20, 30, 40, 50];
const PROJECT_LEVELS = [10, 20, 30, 40];

/** The level an approval grants: Developer by default; Owner only for groups. */
export function approvalLevel(kind: SourceKind, requested: number): { level: number; errors?: FieldErrors } {
  const level = requested || ACCESS.DEVELOPER;
  const allowed = kind === 'group' ? GROUP_LEVELS : PROJECT_LEVELS;
  return allowed.includes(level) ? { level } : { level, errors: { access_level: ['is not included in the list'] } };
}
