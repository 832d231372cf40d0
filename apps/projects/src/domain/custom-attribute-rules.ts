import type { Actor, FieldErrors } from '@glp/service-kit';

/**
 * Custom attributes are an administrators' tool: GitLab's GlobalPolicy grants `read_custom_attribute` and
 * `update_custom_attribute` only to admins (`lib/api/custom_attributes_endpoints.rb` `authorize!`).
 */
export function mayManageCustomAttributes(actor: Actor): boolean {
  return actor.admin;
}

/** Rails' `blank?`: empty or only whitespace. */
const blank = (s: string) => /^\s*$/u.test(s);

/**
 * `ProjectCustomAttribute` validations (`validates :key, :value, presence: true`), as field errors in Rails' order;
 * undefined when valid. (Uniqueness per project is the table's primary key: a PUT replaces the value.)
 */
export function customAttributeErrors(key: string, value: string): FieldErrors | undefined {
  const errors: FieldErrors = {};
  if (blank(key)) errors.key = ["can't be blank"];
  if (blank(value)) errors.value = ["can't be blank"];
  return Object.keys(errors).length ? errors : undefined;
}

/**
 * The `custom_attributes[key]=value` listing filter as applied (`CustomAttributesFilter#by_custom_attributes`): only for
 * callers who may read custom attributes, silently ignored for everyone else; every pair must match.
 */
export function customAttributesFilter(actor: Actor, pairs: readonly { key: string; value: string }[]): { key: string; value: string }[] {
  return mayManageCustomAttributes(actor) ? pairs.map((p) => ({ key: p.key, value: p.value })) : [];
}

/** `with_custom_attributes` (`API::Helpers::CustomAttributes#with_custom_attributes`): asked for, and the caller may read them. */
export function showsCustomAttributes(actor: Actor, requested: boolean): boolean {
  return requested && mayManageCustomAttributes(actor);
}
