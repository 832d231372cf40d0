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

const SCHEDULED_INFIX = 'deletion_scheduled';
/** What GitLab's restore strips: its current infix and the legacy `deleted` one. */
const SCHEDULED_SUFFIX = /-(?:deleted|deletion_scheduled)-\d+$/;

/**
 * The name and path a project takes when marked (Namespaces::MarkForDeletionBaseService#suffixed_identifier), which
 * frees its original path while it waits.
 */
export function scheduledIdentifier(value: string, id: number): string {
  return `${value}-${SCHEDULED_INFIX}-${id}`;
}

/**
 * The name and path a restored project takes back (Namespaces::RestoreBaseService#updated_value): the marking suffix
 * stripped, and when the original is taken meanwhile, `-` and 5 random letters or digits (the same for both).
 */
export function restoredIdentifiers(
  current: { name: string; path: string },
  taken: { name: boolean; path: boolean },
  random: string,
): { name: string; path: string } {
  const suffix = taken.name || taken.path ? `-${random}` : '';
  return { name: current.name.replace(SCHEDULED_SUFFIX, '') + suffix, path: current.path.replace(SCHEDULED_SUFFIX, '') + suffix };
}

/** The original name and path of a marked project, before any suffix for a taken one. */
export function originalIdentifiers(current: { name: string; path: string }): { name: string; path: string } {
  return restoredIdentifiers(current, { name: false, path: false }, '');
}
