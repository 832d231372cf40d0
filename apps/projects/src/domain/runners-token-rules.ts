import type { Actor } from '@glp/service-kit';
import { ACCESS } from './visibility';

/**
 * Who is shown a project's runner registration token: callers who administer the project (GitLab's `admin_project`:
 * Maintainer and above; administrators), wherever the full Project entity is shown, listings included (GitLab 18's
 * `lib/api/entities/project.rb` exposes it in the `with_options if: admin_project` block; older versions needed the
 * endpoint's `user_can_admin_project` option and left it out of listings).
 */
export function mayReadRunnersToken(actor: Actor, access: number): boolean {
  return actor.kind === 'user' && (actor.admin || access >= ACCESS.MAINTAINER);
}

/** GitLab's runner registration token format: `RUNNERS_TOKEN_PREFIX` then Devise.friendly_token(20) (migration 0009 makes them). */
export const RUNNERS_TOKEN_FORMAT = /^GR1348941[A-Za-z0-9_-]{20}$/;
