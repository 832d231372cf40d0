import type { Actor } from '@glp/service-kit';
import { ACCESS } from './visibility';

/** GitLab's `archive_project` (POST /projects/:id/archive and /unarchive): Owners and administrators. Pure. */
export function canArchiveProject(actor: Actor, access: number): boolean {
  return actor.admin || (actor.kind === 'user' && access >= ACCESS.OWNER);
}

/**
 * Archiving is idempotent (GitLab runs the generic update service): asking for the state the project is already in
 * changes nothing, so nothing is written and no event is sent.
 */
export function archiveChanges(current: boolean, wanted: boolean): boolean {
  return current !== wanted;
}
