import { identityV1 } from '@glp/proto';
import type { NamespaceRow, TokenRow, UserRow } from '../store/user-rows';
import { tokenState } from '../domain/tokens';

export function toProtoUser(u: UserRow): identityV1.User {
  return identityV1.User.fromPartial({
    id: u.id,
    username: u.username,
    name: u.name,
    email: u.email,
    state: u.state,
    isAdmin: u.is_admin,
    createdAt: u.created_at,
    bio: u.bio,
    location: u.location,
    publicEmail: u.public_email,
    websiteUrl: u.website_url,
    organization: u.organization,
    jobTitle: u.job_title,
    projectsLimit: u.projects_limit,
    canCreateGroup: u.can_create_group,
    canCreateProject: u.projects_limit > 0,
    external: u.external,
    privateProfile: u.private_profile,
    avatarUrl: '',
    namespaceId: u.namespace_id ?? 0,
    confirmedAt: u.confirmed_at ?? undefined,
    bot: u.bot,
  });
}

export function toProtoNamespace(n: NamespaceRow, owner?: UserRow): identityV1.Namespace {
  return identityV1.Namespace.fromPartial({
    id: n.id,
    name: n.name,
    path: n.path,
    kind: n.kind,
    fullPath: n.full_path,
    parentId: n.parent_id ?? 0,
    owner: owner ? toProtoUser(owner) : undefined,
    avatarUrl: '',
    version: n.version,
    selfOrAncestorMarkedForDeletion: n.self_or_ancestor_marked ?? false,
  });
}

export function toProtoToken(t: TokenRow, userState: string, secret?: string): identityV1.PersonalAccessToken {
  return identityV1.PersonalAccessToken.fromPartial({
    id: t.id,
    name: t.name,
    revoked: t.revoked,
    createdAt: t.created_at,
    description: t.description,
    scopes: t.scopes,
    userId: t.user_id,
    lastUsedAt: t.last_used_at ?? undefined,
    active: tokenState({ revoked: t.revoked, expiresAt: t.expires_at, userState }) === 'active',
    expiresAt: t.expires_at ?? '',
    token: secret ?? '',
  });
}
