import type { Actor } from '@glp/service-kit';

/** GitLab's access levels that repository administration needs. */
export const MAINTAINER = 40;

/**
 * GitLab `authenticated_with_can_read_all_resources!` (snapshots, `lib/api/helpers/project_snapshots_helpers.rb`):
 * administrators (and auditors, a role this platform does not have). Anyone else is refused before the project is looked
 * up.
 */
export function mayReadAllResources(actor: Actor): boolean {
  return actor.kind === 'user' && actor.admin;
}

/** GitLab `authorize_admin_project` (`admin_project`: Maintainer or above, administrators): housekeeping, repository_size. */
export function mayAdminProject(actor: Actor, accessLevel: number): boolean {
  return actor.kind === 'user' && (actor.admin || accessLevel >= MAINTAINER);
}

/** The housekeeping tasks `POST /projects/:id/housekeeping` accepts (`values: %i[eager prune]`, default eager). */
export const HOUSEKEEPING_TASKS = ['eager', 'prune'] as const;
export type HousekeepingTask = (typeof HOUSEKEEPING_TASKS)[number];

export const isHousekeepingTask = (task: string): task is HousekeepingTask => (HOUSEKEEPING_TASKS as readonly string[]).includes(task);

/**
 * `Repositories::HousekeepingService::LeaseTaken#to_s` (`app/services/repositories/housekeeping_service.rb`,
 * LEASE_TIMEOUT 86400 s): the 409 message while a housekeeping of the project is queued or running.
 */
export const HOUSEKEEPING_LEASE_TAKEN = 'Somebody already triggered housekeeping for this resource in the past 1440 minutes';
