import type { accessRequestsV1 } from '@glp/proto';
import type { UrlBuilder } from './urls';

const iso = (d?: Date) => (d ? d.toISOString() : null);

/**
 * `Entities::AccessRequester` (spec 2.4): the requester's UserBasic fields, `created_at` (when the request was made,
 * as GitLab's documented record shows it) and `requested_at`. ONE literal.
 */
export function accessRequesterEntity(r: accessRequestsV1.AccessRequest, urls: UrlBuilder) {
  return {
    id: r.userId,
    username: r.username,
    name: r.name,
    state: r.state,
    locked: false,
    avatar_url: r.avatarUrl || null,
    web_url: urls.web(r.username),
    created_at: iso(r.requestedAt),
    requested_at: iso(r.requestedAt),
  };
}

/** The approve answer: `Entities::Member` of the new membership — access_level, no requested_at (spec 2.4). */
export function approvedMemberEntity(m: accessRequestsV1.ApprovedMember, urls: UrlBuilder) {
  return {
    id: m.userId,
    username: m.username,
    name: m.name,
    state: m.state,
    locked: false,
    avatar_url: m.avatarUrl || null,
    web_url: urls.web(m.username),
    created_at: iso(m.createdAt),
    access_level: m.accessLevel,
    expires_at: m.expiresAt || null,
    membership_state: 'active',
  };
}
