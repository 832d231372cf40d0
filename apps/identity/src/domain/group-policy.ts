import type { Actor } from '@glp/service-kit';
import { ACCESS } from './access-levels';
import type { Visibility } from './group-rules';

/** What a permission decision about one group needs to know of the caller (no I/O here). */
export interface GroupFacts {
  visibility: Visibility;
  /** The caller's effective level: the highest of its memberships in the group and its ancestors (0 none). */
  callerAccess: number;
  /** The caller is a member of a group below this one (GitLab lets them see the ancestors). */
  callerInDescendant: boolean;
}

export interface Caller {
  actor: Actor;
  external: boolean;
}

const isUser = (c: Caller) => c.actor.kind === 'user';

/** GitLab's `read_group`: public to all, internal to signed-in non-external users, private to members (and above). */
export function canReadGroup(c: Caller, g: GroupFacts): boolean {
  if (c.actor.admin) return true;
  if (g.visibility === 'public') return true;
  if (g.visibility === 'internal' && isUser(c) && !c.external) return true;
  return isUser(c) && (g.callerAccess > ACCESS.NO_ACCESS || g.callerInDescendant);
}

/** `admin_group` (edit), `remove_group` (delete) and `admin_group_member` (add, change, remove members): owners. */
export function canAdminGroup(c: Caller, g: GroupFacts): boolean {
  return c.actor.admin || (isUser(c) && g.callerAccess >= ACCESS.OWNER);
}

/** `create_subgroup` with GitLab's default `subgroup_creation_level` (maintainers). */
export function canCreateSubgroup(c: Caller, g: GroupFacts): boolean {
  return c.actor.admin || (isUser(c) && g.callerAccess >= ACCESS.MAINTAINER);
}

/** `create_group` at the top level: the user's `can_create_group`, never external users. */
export function canCreateTopLevelGroup(c: Caller, canCreateGroup: boolean): boolean {
  return c.actor.admin || (isUser(c) && canCreateGroup && !c.external);
}

/** GitLab's `read_namespace_via_membership`: one's own namespace, or a group one has access to. */
export function canReadNamespaceViaMembership(c: Caller, ns: { kind: 'user' | 'group'; ownerId: number | null }, g?: GroupFacts): boolean {
  if (c.actor.admin) return true;
  if (!isUser(c)) return false;
  if (ns.kind === 'user') return ns.ownerId === c.actor.id;
  return (g?.callerAccess ?? 0) > ACCESS.NO_ACCESS;
}
