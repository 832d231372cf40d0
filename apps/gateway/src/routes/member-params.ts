import { defineParams, p } from '../http/params';
import { paginationParams } from '../http/pagination';
import { ACCESS_LEVELS } from './group-routes';

/**
 * The params of `lib/api/members.rb`, one schema per route shape, shared by group and project members (`:id` is the
 * group or the project).
 */

/** GET .../members and .../members/all. */
export const listMembersParams = defineParams({ id: p.string().required(), ...paginationParams, query: p.string(), user_ids: p.arrayOf(p.integer()) });

/** GET and DELETE .../members/:user_id (and GET .../members/all/:user_id). */
export const oneMemberParams = defineParams({ id: p.string().required(), user_id: p.integer().required() });

/** PUT .../members/:user_id. */
export const updateMemberParams = defineParams({
  id: p.string().required(),
  user_id: p.integer().required(),
  access_level: p.int32().required().values(ACCESS_LEVELS),
  expires_at: p.date(),
});

/** `expires_at` of an update: absent leaves it (undefined); sent empty removes it ('none', as Grape coerces "" to nil). */
export function expiryChange(expiresAt: string | null | undefined): string | undefined {
  return expiresAt === undefined ? undefined : (expiresAt ?? 'none');
}
