/**
 * GitLab's `Project#check_personal_projects_limit`: a project in a personal namespace needs its creator to have
 * personal projects left (`User#can_create_project?`: projects_limit − personal projects > 0). Group namespaces have no
 * such limit. The message is the `limit_reached` error GitLab's create (403), create-for-user (400) and fork (409) show.
 */
export function personalProjectLimitError(projectsLimit: number, personalProjects: number): string | undefined {
  if (projectsLimit - personalProjects > 0) return undefined;
  return projectsLimit === 0
    ? 'Personal project creation is not allowed. Please contact your administrator with questions'
    : `Your project limit is ${projectsLimit} projects! Please contact your administrator to increase it`;
}

/**
 * Who becomes a member of a new project (`Projects::CreateService#after_create_actions`): in a personal namespace its
 * owner, as Owner; in a group nobody (access comes from the group: a group Maintainer who creates a project is its
 * Maintainer, not its Owner).
 */
export function initialOwnerOf(namespace: { kind: string; owner_id: number | null }): number | undefined {
  return namespace.kind === 'user' && namespace.owner_id !== null ? namespace.owner_id : undefined;
}
