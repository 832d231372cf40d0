/** Row shapes of the identity schema, as pg returns them. */
export interface UserRow {
  id: number;
  username: string;
  name: string;
  email: string;
  state: string;
  is_admin: boolean;
  bot: boolean;
  external: boolean;
  private_profile: boolean;
  projects_limit: number;
  can_create_group: boolean;
  bio: string;
  location: string;
  public_email: string;
  website_url: string;
  organization: string;
  job_title: string;
  namespace_id: number | null;
  confirmed_at: Date | null;
  created_at: Date;
}

export interface NamespaceRow {
  id: number;
  name: string;
  path: string;
  kind: 'user' | 'group';
  parent_id: number | null;
  owner_id: number | null;
  version: number;
  full_path: string;
  /** Groups (see GroupRow); absent for rows read without them (personal namespaces). */
  marked_for_deletion_on?: string | null;
  self_or_ancestor_marked?: boolean;
}

export interface TokenRow {
  id: number;
  user_id: number;
  name: string;
  description: string;
  scopes: string[];
  expires_at: string | null;
  revoked: boolean;
  last_used_at: Date | null;
  created_at: Date;
}

export const USER_COLUMNS = `id, username, name, email, state, is_admin, bot, external, private_profile, projects_limit,
  can_create_group, bio, location, public_email, website_url, organization, job_title, namespace_id, confirmed_at, created_at`;

export const TOKEN_COLUMNS = `id, user_id, name, description, scopes, to_char(expires_at, 'YYYY-MM-DD') AS expires_at, revoked,
  last_used_at, created_at`;
