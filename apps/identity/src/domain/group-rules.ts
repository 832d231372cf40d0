import type { FieldErrors } from '@glp/service-kit';
import { namespacePathErrors } from './namespace-path';

export type Visibility = 'private' | 'internal' | 'public';

const RANK: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };

export function isVisibility(v: string): v is Visibility {
  return v === 'private' || v === 'internal' || v === 'public';
}

/** The instance default for new groups (GitLab's `default_group_visibility` application setting). */
export const DEFAULT_GROUP_VISIBILITY: Visibility = 'private';

/** Gitlab::Regex.group_name_regex. */
const GROUP_NAME = /^[\p{L}\p{N}\p{Extended_Pictographic}_][\p{L}\p{N}\p{Pd}+\p{Extended_Pictographic}_. ()]*$/u;

export interface GroupAttributes {
  name: string;
  path: string;
  visibility: Visibility;
}

/** GitLab's Group/Namespace validations for a new or changed group, as ActiveModel error messages per attribute. */
export function groupErrors(
  g: GroupAttributes,
  context: { parentVisibility?: Visibility; mostPublicChild?: Visibility },
): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (g.name.trim().length === 0) add('name', "can't be blank");
  if (g.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  if (g.name.length > 0 && !GROUP_NAME.test(g.name)) {
    add('name', "can contain only letters, digits, emoji, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.");
  }
  for (const m of namespacePathErrors(g.path, context.parentVisibility === undefined)) add('path', m);
  if (context.parentVisibility && RANK[g.visibility] > RANK[context.parentVisibility]) {
    add('visibility_level', `${g.visibility} is not allowed since the parent group has a ${context.parentVisibility} visibility.`);
  }
  if (context.mostPublicChild && RANK[g.visibility] < RANK[context.mostPublicChild]) {
    add('visibility_level', `${g.visibility} is not allowed since there are sub-groups with higher visibility.`);
  }
  return errors;
}
