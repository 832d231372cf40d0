import type { Actor } from '@glp/service-kit';
import { ACCESS } from './visibility';

/** GitLab's `Gitlab::Access.all_values`: the levels a project may be shared with a group at. */
export const SHARE_LEVELS: readonly number[] = [ACCESS.MINIMAL, ACCESS.GUEST, ACCESS.PLANNER, ACCESS.REPORTER, ACCESS.DEVELOPER, ACCESS.MAINTAINER, ACCESS.OWNER];

/** GitLab's messages for a link that cannot be saved (`ProjectGroupLink` validations; the API answers 409). */
export const SHARE_FAILURES = {
  /** `validates :project_id, uniqueness: { scope: [:group_id], message: "already shared with this group" }`. */
  alreadyShared: 'Project already shared with this group',
  /** `validate :different_group`. */
  ownGroup: 'Project cannot be shared with the group it is in or one of its ancestors.',
} as const;

/** An unexpired link of the project to a group. */
export interface ShareLinkFacts {
  groupId: number;
  groupAccess: number;
}

/**
 * The caller's level through the project's share links: for each link, the lower of their effective level in the
 * group (ancestors included, as identity answers it) and the link's `group_access`; the highest of those; 0 none
 * (GitLab's project_authorizations for project_group_links).
 */
export function shareAccess(links: readonly ShareLinkFacts[], groupLevels: ReadonlyMap<number, number>): number {
  let best = 0;
  for (const l of links) {
    const level = groupLevels.get(l.groupId) ?? 0;
    if (level > 0) best = Math.max(best, Math.min(level, l.groupAccess));
  }
  return best;
}

/**
 * Why the link cannot be created, or undefined: the project's own group or one of its ancestors, or a link to the
 * group already there (GitLab checks `different_group` after uniqueness; both are 409 with the first full message).
 */
export function shareFailure(groupId: number, namespaceGroupIds: readonly number[], sharedGroupIds: readonly number[]): string | undefined {
  if (sharedGroupIds.includes(groupId)) return SHARE_FAILURES.alreadyShared;
  if (namespaceGroupIds.includes(groupId)) return SHARE_FAILURES.ownGroup;
  return undefined;
}

/**
 * `Projects::GroupLinks::CreateService`: sharing at Owner needs the right to manage owners (an Owner of the project or
 * an administrator); other levels need only `admin_project` (checked before).
 */
export function mayShareAt(actor: Actor, callerAccess: number, groupAccess: number): boolean {
  return groupAccess < ACCESS.OWNER || actor.admin || callerAccess >= ACCESS.OWNER;
}

/**
 * The level a source member is imported at (`ProjectTeam#import` / `Members::ImportProjectTeamService`): never above
 * the importer's own level (administrators are not capped); an Owner is imported as Maintainer unless the importer may
 * manage owners.
 */
export function importedLevel(sourceLevel: number, importer: { admin: boolean; access: number }): number {
  const capped = importer.admin ? sourceLevel : Math.min(sourceLevel, importer.access);
  const managesOwners = importer.admin || importer.access >= ACCESS.OWNER;
  return capped >= ACCESS.OWNER && !managesOwners ? ACCESS.MAINTAINER : capped;
}

const humanize = (attribute: string) => {
  const s = attribute.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
};

/** Rails' `errors.full_messages.to_sentence` of a member's field errors ("A, B, and C"; "A and B"). */
export function memberErrorSentence(fields: Record<string, string[]>): string {
  const messages = Object.entries(fields).flatMap(([k, v]) => v.map((m) => `${humanize(k)} ${m}`));
  if (messages.length <= 2) return messages.join(' and ');
  return `${messages.slice(0, -1).join(', ')}, and ${messages[messages.length - 1]}`;
}
