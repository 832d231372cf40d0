import type { Actor } from '@glp/service-kit';

export type VisibilityLevel = 'private' | 'internal' | 'public';
export const VISIBILITY_LEVELS: readonly VisibilityLevel[] = ['private', 'internal', 'public'];

export const ACCESS = { NONE: 0, MINIMAL: 5, GUEST: 10, PLANNER: 15, REPORTER: 20, DEVELOPER: 30, MAINTAINER: 40, OWNER: 50 } as const;

/** The instance default for new projects (GitLab's `default_project_visibility`). */
export const DEFAULT_VISIBILITY: VisibilityLevel = 'private';

export interface ProjectAccessFacts {
  visibility: VisibilityLevel;
  /** The caller's membership level in the project, 0 when none. */
  memberAccess: number;
  /** Owner of the project's personal namespace. */
  namespaceOwnerId: number | null;
  /** The caller's effective level in the project's group namespace (ancestors included), 0 when none. */
  groupAccess: number;
  /** The caller's level through groups the project is shared with (min of their group level and the link's), 0 none. */
  shareAccess: number;
  pendingDelete: boolean;
}

/**
 * The caller's effective access level: the highest of membership, group access, access through a share, and owner of
 * the personal namespace.
 */
export function effectiveAccess(actor: Actor, p: ProjectAccessFacts): number {
  if (actor.kind !== 'user') return ACCESS.NONE;
  if (p.namespaceOwnerId !== null && p.namespaceOwnerId === actor.id) return ACCESS.OWNER;
  return Math.max(p.memberAccess, p.groupAccess, p.shareAccess);
}

/**
 * GitLab's read rule: public to all, internal to signed-in users except external ones, private to members; admins read
 * all. External users read internal projects only as members.
 */
export function canReadProject(actor: Actor, p: ProjectAccessFacts): boolean {
  if (p.pendingDelete) return false;
  if (actor.admin) return true;
  if (p.visibility === 'public') return true;
  if (p.visibility === 'internal' && actor.kind === 'user' && !actor.external) return true;
  return effectiveAccess(actor, p) >= ACCESS.GUEST;
}
