import { VISIBILITY_LEVELS, type VisibilityLevel } from './visibility';

/** GitLab's transfer failure body: `Failed to transfer project {:new_namespace=>["<reason>"]}` (Ruby's Hash#inspect). */
export function transferFailure(reason: string): string {
  return `Failed to transfer project {:new_namespace=>[${JSON.stringify(reason)}]}`;
}

export const TRANSFER_REASONS = {
  sameNamespace: 'Project is already in this namespace.',
  noPermissionInTarget: "You don't have permission to transfer projects into that namespace.",
  nameTaken: 'Project with same name or path in target namespace already exists',
} as const;

/** A project moved into a group is no more visible than the group (GitLab lowers it); personal namespaces keep it. */
export function visibilityAfterTransfer(current: VisibilityLevel, groupVisibility?: VisibilityLevel): VisibilityLevel {
  if (!groupVisibility) return current;
  return VISIBILITY_LEVELS.indexOf(current) > VISIBILITY_LEVELS.indexOf(groupVisibility) ? groupVisibility : current;
}
