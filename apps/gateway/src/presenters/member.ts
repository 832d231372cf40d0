import type { identityV1, projectsV1 } from '@glp/proto';
import type { UrlBuilder } from './urls';

const iso = (d?: Date) => (d ? d.toISOString() : null);

/** UserBasic (as `presenters/user.ts` `userBasic`), the shape of a member's `created_by`. */
function creatorBasic(u: identityV1.User, urls: UrlBuilder) {
  return {
    id: u.id,
    username: u.username,
    public_email: u.publicEmail || null,
    name: u.name,
    state: u.state,
    locked: false,
    avatar_url: u.avatarUrl || null,
    web_url: urls.web(u.username),
  };
}

/**
 * `Entities::Member` (`lib/api/entities/member.rb` + `ee/.../member.rb`, no license): the member's user as UserBasic
 * merged in, then access_level, created_at, created_by (UserBasic; left out when the creator is unknown, like
 * `expose_nil: false`), expires_at (`YYYY-MM-DD` or null) and membership_state. ONE object literal (no spread).
 * identity sends the creator with the member (one query for a whole page).
 */
export function memberEntity(m: identityV1.GroupMember, urls: UrlBuilder) {
  const u = m.user;
  const creator = m.createdBy;
  return {
    id: u?.id ?? 0,
    username: u?.username ?? '',
    public_email: u?.publicEmail || null,
    name: u?.name ?? '',
    state: u?.state ?? 'active',
    locked: false,
    avatar_url: u?.avatarUrl || null,
    web_url: urls.web(u?.username ?? ''),
    access_level: m.accessLevel,
    created_at: iso(m.createdAt),
    created_by: creator ? creatorBasic(creator, urls) : undefined,
    expires_at: m.expiresAt || null,
    membership_state: 'active',
  };
}

type MemberUser = projectsV1.MemberUser;

/** UserBasic from the projects service's user fields (no public e-mail there: null, as for a user who set none). */
export function memberUserBasic(u: MemberUser | undefined, urls: UrlBuilder) {
  return {
    id: u?.id ?? 0,
    username: u?.username ?? '',
    public_email: null,
    name: u?.name ?? '',
    state: u?.state ?? 'active',
    locked: false,
    avatar_url: u?.avatarUrl || null,
    web_url: urls.web(u?.username ?? ''),
  };
}

/** `Entities::Member` of a project membership (direct, or inherited from a group for `/members/all`). ONE literal. */
export function projectMemberEntity(m: projectsV1.ProjectMember, urls: UrlBuilder) {
  const u = m.user;
  return {
    id: u?.id ?? 0,
    username: u?.username ?? '',
    public_email: null,
    name: u?.name ?? '',
    state: u?.state ?? 'active',
    locked: false,
    avatar_url: u?.avatarUrl || null,
    web_url: urls.web(u?.username ?? ''),
    access_level: m.accessLevel,
    created_at: iso(m.createdAt),
    created_by: m.createdBy ? memberUserBasic(m.createdBy, urls) : undefined,
    expires_at: m.expiresAt || null,
    membership_state: 'active',
  };
}
