/**
 * The path that removes a project at once: `DELETE /projects/:id` only marks a project for deletion (GitLab 18, which
 * renames it `<path>-deletion_scheduled-<id>`); a second DELETE with `permanently_remove` and that renamed full path
 * removes it. Tests that need a project gone send DELETE to the plain path first, then to this one.
 */
export function permanentRemovalPath(project: { id: number; path_with_namespace: string }): string {
  const renamed = `${project.path_with_namespace}-deletion_scheduled-${project.id}`;
  return `/projects/${project.id}?permanently_remove=true&full_path=${encodeURIComponent(renamed)}`;
}

/**
 * The same for a group: `DELETE /groups/:id` only marks it (renamed `<path>-deletion_scheduled-<id>`, its full path
 * with it); a second DELETE with `permanently_remove` and the renamed full path removes it, its subgroups and projects.
 */
export function groupPermanentRemovalPath(group: { id: number; full_path: string }): string {
  const renamed = `${group.full_path}-deletion_scheduled-${group.id}`;
  return `/groups/${group.id}?permanently_remove=true&full_path=${encodeURIComponent(renamed)}`;
}
