import type { Actor } from '@glp/service-kit';
import { ACCESS } from './visibility';

/** GitLab's `remove_project`: Owners and administrators. */
export function canRemoveProject(actor: Actor, access: number): boolean {
  return actor.admin || (actor.kind === 'user' && access >= ACCESS.OWNER);
}

export type DeletionDecision =
  | { kind: 'delete' }
  | { kind: 'mark'; on: string }
  | { kind: 'refuse'; message: string };

/**
 * What DELETE /projects/:id does (GitLab's projects API with delayed deletion): without a delay, delete; with one,
 * mark for deletion `delayDays` from today; a marked project is deleted at once only with `permanently_remove` and its
 * exact full path; marking twice is refused.
 */
export function decideDeletion(
  p: { markedForDeletionOn: string | null; fullPath: string },
  req: { permanentlyRemove: boolean; fullPath: string },
  delayDays: number,
  today: Date = new Date(),
): DeletionDecision {
  if (req.permanentlyRemove) {
    if (!p.markedForDeletionOn) return { kind: 'refuse', message: '`permanently_remove` option is only available for a project marked for deletion' };
    if (req.fullPath !== p.fullPath) return { kind: 'refuse', message: '`full_path` is incorrect. You must enter the complete path for the project.' };
    return { kind: 'delete' };
  }
  if (delayDays <= 0) return { kind: 'delete' };
  if (p.markedForDeletionOn) return { kind: 'refuse', message: 'Project has been already marked for deletion' };
  return { kind: 'mark', on: new Date(today.getTime() + delayDays * 86400000).toISOString().slice(0, 10) };
}
