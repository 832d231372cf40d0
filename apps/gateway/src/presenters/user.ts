import type { identityV1 } from '@glp/proto';
import type { UrlBuilder } from './urls';

const iso = (d?: Date) => (d ? d.toISOString() : null);

/** UserBasic: id, username, name, state, locked, avatar_url, web_url. */
export function userBasic(u: identityV1.User, urls: UrlBuilder) {
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

/** User: UserBasic and the public profile. */
export function userEntity(u: identityV1.User, urls: UrlBuilder) {
  return {
    ...userBasic(u, urls),
    created_at: iso(u.createdAt),
    bio: u.bio,
    location: u.location,
    linkedin: '',
    twitter: '',
    discord: '',
    website_url: u.websiteUrl,
    github: '',
    job_title: u.jobTitle,
    pronouns: null,
    organization: u.organization,
    bot: u.bot,
    work_information: u.organization || null,
    followers: 0,
    following: 0,
    is_followed: false,
    local_time: null,
  };
}

/** UserPublic (what a user sees of themself on GET /user); admins also see is_admin. */
export function userPublic(u: identityV1.User, urls: UrlBuilder, viewerIsAdmin: boolean) {
  return {
    ...userEntity(u, urls),
    last_sign_in_at: null,
    confirmed_at: iso(u.confirmedAt),
    last_activity_on: null,
    email: u.email,
    theme_id: 3,
    color_scheme_id: 1,
    projects_limit: u.projectsLimit,
    current_sign_in_at: null,
    identities: [],
    can_create_group: u.canCreateGroup,
    can_create_project: u.canCreateProject,
    two_factor_enabled: false,
    external: u.external,
    private_profile: u.privateProfile,
    commit_email: u.email,
    ...(viewerIsAdmin ? { is_admin: u.isAdmin } : {}),
  };
}

/** UserWithAdmin: what administrators get from POST /users and GET /users/:id. */
export function userWithAdmin(u: identityV1.User, urls: UrlBuilder) {
  return {
    ...userPublic(u, urls, true),
    note: null,
    namespace_id: u.namespaceId,
    created_by: null,
    email_reset_offered_at: null,
  };
}

/** The entity identity chose for the caller (GetUserResponse.view). */
export function presentUser(u: identityV1.User, view: string, urls: UrlBuilder) {
  switch (view) {
    case 'admin':
      return userWithAdmin(u, urls);
    case 'self':
      return userPublic(u, urls, false);
    case 'private':
      return userBasic(u, urls);
    default:
      return userEntity(u, urls);
  }
}

export function personalAccessToken(t: identityV1.PersonalAccessToken, withSecret: boolean) {
  return {
    id: t.id,
    name: t.name,
    revoked: t.revoked,
    created_at: iso(t.createdAt),
    description: t.description || null,
    scopes: t.scopes,
    user_id: t.userId,
    last_used_at: iso(t.lastUsedAt),
    active: t.active,
    expires_at: t.expiresAt || null,
    ...(withSecret ? { token: t.token } : {}),
  };
}
