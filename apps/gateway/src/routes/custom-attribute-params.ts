import type { projectsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';

/**
 * The listings' `custom_attributes[<key>]=<value>` filter (GitLab `optional :custom_attributes, type: Hash`, applied by
 * `CustomAttributesFilter#by_custom_attributes`: every pair must match) as the pairs sent to the projects service, which
 * ignores them for non-administrators. Only string values filter; a nested hash or array under a key is left out.
 */
export function customAttributePairs(hash: Record<string, unknown> | null | undefined): projectsV1.CustomAttribute[] {
  if (!hash) return [];
  return Object.entries(hash).flatMap(([key, value]) => (typeof value === 'string' ? [{ key, value }] : []));
}

/**
 * Whether `custom_attributes` is shown (`with_custom_attributes` helper: `params[:with_custom_attributes] &&
 * can?(current_user, :read_custom_attribute)`): asked for, by an administrator.
 */
export const showsCustomAttributes = (asked: boolean | null | undefined, actor: Actor): boolean => asked === true && actor.admin;
