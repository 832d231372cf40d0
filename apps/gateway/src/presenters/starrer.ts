import type { projectsV1 } from '@glp/proto';
import type { UrlBuilder } from './urls';

const iso = (d?: Date) => (d ? d.toISOString() : null);

/**
 * `Entities::UserStarsProject` (`lib/api/entities/user_stars_project.rb`): `starred_since` and the user as UserBasic
 * (`id, username, public_email, name, state, locked, avatar_url, web_url`; the projects service has no public e-mail:
 * null, as for a user who set none). ONE object literal per level (no spread).
 */
export function starrerEntity(s: projectsV1.Starrer, urls: UrlBuilder) {
  const u = s.user;
  return {
    starred_since: iso(s.starredSince),
    user: {
      id: u?.id ?? 0,
      username: u?.username ?? '',
      public_email: null,
      name: u?.name ?? '',
      state: u?.state ?? 'active',
      locked: false,
      avatar_url: u?.avatarUrl || null,
      web_url: urls.web(u?.username ?? ''),
    },
  };
}
