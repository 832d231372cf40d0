/**
 * GitLab's redirect routes of renamed or moved projects (app/models/route.rb, app/models/redirect_route.rb,
 * lib/api/helpers.rb `find_project!` / `project_moved?`). Pure rules; the SQL is in store/redirect-routes-store.ts.
 */

/** A project's full path: its namespace's full path and its own path. */
export const projectFullPath = (namespaceFullPath: string, path: string): string => `${namespaceFullPath}/${path}`;

/**
 * The redirect a route change leaves behind (Route `create_redirect_for_old_path`): the old full path, or none when the
 * path did not change. A change of letter case only leaves none either: lookups are case-insensitive, so the live route
 * keeps answering the old spelling, and redirect paths are unique case-insensitively (the live path wins anyway).
 */
export function redirectLeftBy(oldFullPath: string, newFullPath: string): string | null {
  return oldFullPath.toLowerCase() === newFullPath.toLowerCase() ? null : oldFullPath;
}

/**
 * GitLab's `project_moved?`: a project looked up by a full path (an `:id` containing "/") that is not, ignoring case,
 * its current full path was reached through a redirect route. A numeric id never is.
 */
export function reachedByOldPath(requested: string, currentFullPath: string): boolean {
  return requested.includes('/') && requested.toLowerCase() !== currentFullPath.toLowerCase();
}

/** Whether `requested` is the project's current full path (as GitLab compares routes: whatever the case). */
export function isCurrentPath(requested: string, currentFullPath: string): boolean {
  return requested.toLowerCase() === currentFullPath.toLowerCase();
}
