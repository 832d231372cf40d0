import type { Actor } from '@glp/service-kit';
import { ACCESS } from './visibility';

/** GitLab's `remove_project`: Owners and administrators. */
export function canRemoveProject(actor: Actor, access: number): boolean {
  return actor.admin || (actor.kind === 'user' && access >= ACCESS.OWNER);
}

export type DeletionDecision =
  | { kind: 'delete' }
  | { kind: 'mark' }
  | { kind: 'refuse'; message: string };

/**
 * What DELETE /projects/:id does (GitLab 18, every tier): mark the project for deletion; a marked project is deleted at
 * once only with `permanently_remove` and its exact full path (as it is now, renamed); marking twice is refused. The
 * messages are GitLab's (Projects::MarkForDeletionService, the projects API's immediate-deletion checks).
 */
export function decideDeletion(
  p: { marked: boolean; fullPath: string },
  req: { permanentlyRemove: boolean; fullPath: string },
): DeletionDecision {
  if (req.permanentlyRemove) {
    if (!p.marked) return { kind: 'refuse', message: 'Project must be marked for deletion first.' };
    if (req.fullPath !== p.fullPath) return { kind: 'refuse', message: '`full_path` is incorrect. You must enter the complete path for the project.' };
    return { kind: 'delete' };
  }
  if (p.marked) return { kind: 'refuse', message: 'Project has been already marked for deletion' };
  return { kind: 'mark' };
}

// The naming of marked and restored projects is shared with groups (identity): @glp/service-kit deletion-schedule.
export { originalIdentifiers, restoredIdentifiers, scheduledIdentifier } from '@glp/service-kit';
