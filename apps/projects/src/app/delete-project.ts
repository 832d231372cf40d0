import { isUniqueViolation, withTransaction, type PoolClient } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { forbidden, invalid, randomAlphanumeric, rejected, startPeriodicTask, systemActor, type Actor, type Logger } from '@glp/service-kit';
import {
  canRemoveProject, decideDeletion, originalIdentifiers, restoredIdentifiers, scheduledIdentifier,
} from '../domain/deletion-rules';
import { projectFullPath, redirectLeftBy } from '../domain/redirect-rules';
import { recordProjectDeleted, recordProjectForksRemoved, recordProjectUpdated } from '../events/project-events';
import { deleteProjects, lockDueForDeletion, markForDeletion, unmarkForDeletion } from '../store/deletion-store';
import { unlinkForksOfSources } from '../store/forks-store';
import type { ProjectRow } from '../store/project-rows';
import { takenByOtherProject } from '../store/projects-store';
import { recordProjectRoute } from '../store/redirect-routes-store';
import type { ProjectsDeps } from './deps';
import { readableProject, type ReadableProject } from './read-project';

export type DeletionDeps = ProjectsDeps;

const fullPathOf = (p: ReadableProject) => `${p.row.ns_full_path}/${p.row.path}`;

/** A concurrent create or edit took the name or path first: the unique indexes speak, as GitLab's validation would. */
async function withTakenNames<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err, 'projects_namespace_path_key')) throw invalid({ path: ['has already been taken'] });
    if (isUniqueViolation(err, 'projects_namespace_name_key')) throw invalid({ name: ['has already been taken'] });
    throw err;
  }
}

/**
 * DELETE /projects/:id (Owners, administrators), as GitLab 18 does on every tier: the project is marked for deletion
 * (archived, `marked_for_deletion_on` today, renamed `<name>-deletion_scheduled-<id>` so its path is free, the old
 * path redirecting to it) and the purge removes it once identity's `deletion_adjourned_period` has passed.
 * `permanently_remove` + its exact (renamed) `full_path` deletes a marked project at once: its row (members, stars and
 * its own fork relation cascade; its forks lose their source with ProjectForkRemoved) and ProjectDeleted in one
 * transaction, so the other services drop what they hold for it.
 */
export async function deleteProject(
  deps: DeletionDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], req: { permanentlyRemove: boolean; fullPath: string },
): Promise<{ marked: boolean }> {
  const project = await readableProject(deps, actor, sel);
  if (!canRemoveProject(actor, project.access)) throw forbidden();
  const decision = decideDeletion({ marked: project.row.marked_for_deletion_on !== null, fullPath: fullPathOf(project) }, req);
  if (decision.kind === 'refuse') throw rejected(decision.message);
  const { row } = project;
  await withTakenNames(() => withTransaction(deps.pool, async (client) => {
    if (decision.kind === 'delete') {
      await recordProjectForksRemoved(client, deps.topic, await unlinkForksOfSources(client, { ids: [row.id] }), actor);
      for (const gone of await deleteProjects(client, [row.id])) await recordProjectDeleted(client, deps.topic, gone, actor);
      return;
    }
    const renamed = { name: scheduledIdentifier(row.name, row.id), path: scheduledIdentifier(row.path, row.id) };
    const on = await markForDeletion(client, row.id, renamed, actor.kind === 'user' ? actor.id : null);
    if (!on) throw rejected('Project has been already marked for deletion');
    await renamedProject(deps, client, row, renamed.path, {
      archived: true, changed: ['marked_for_deletion_on', 'archived', 'name', 'path'], markedForDeletionOn: on,
    }, actor);
  }));
  return { marked: decision.kind === 'mark' };
}

/** After a rename in the caller's transaction: the old path redirects here (GitLab's Route callbacks), ProjectUpdated. */
async function renamedProject(
  deps: DeletionDeps, client: PoolClient, before: ProjectRow, newPath: string,
  change: { archived: boolean; changed: string[]; markedForDeletionOn: string | null }, actor: Actor,
): Promise<void> {
  const oldFullPath = projectFullPath(before.ns_full_path, before.path);
  const newFullPath = projectFullPath(before.ns_full_path, newPath);
  await recordProjectRoute(client, before.id, redirectLeftBy(oldFullPath, newFullPath));
  await recordProjectUpdated(client, deps.topic, {
    id: before.id, pathWithNamespace: newFullPath, visibility: before.visibility, archived: change.archived,
    changed: change.changed, markedForDeletionOn: change.markedForDeletionOn, repositoryStorage: before.repository_storage,
  }, actor);
}

/**
 * POST /projects/:id/restore (Owners, administrators): off the deletion schedule, unarchived, its name and path taken
 * back (with a random suffix when another project took them meanwhile, as GitLab's RestoreService).
 */
export async function restoreProject(deps: DeletionDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector']): Promise<ReadableProject> {
  const project = await readableProject(deps, actor, sel);
  if (!canRemoveProject(actor, project.access)) throw forbidden();
  const { row } = project;
  if (!row.marked_for_deletion_on) throw rejected('Project has not been marked for deletion');
  await withTakenNames(() => withTransaction(deps.pool, async (client) => {
    const original = originalIdentifiers(row);
    const taken = await takenByOtherProject(client, row.namespace_id, row.id, original.name, original.path);
    const restored = restoredIdentifiers(row, taken, randomAlphanumeric(5));
    if (!(await unmarkForDeletion(client, row.id, restored))) throw rejected('Project has not been marked for deletion');
    await renamedProject(deps, client, row, restored.path, {
      archived: false, changed: ['marked_for_deletion_on', 'archived', 'name', 'path'], markedForDeletionOn: null,
    }, actor);
  }));
  return readableProject(deps, actor, { $case: 'id', value: row.id });
}

const SERVICE = systemActor('projects');

/**
 * The instance's deletion_adjourned_period, read from identity (which owns the setting) on every purge round, so a
 * change through PUT /application/settings applies to projects already marked, as in GitLab.
 */
async function deletionAdjournedPeriod(deps: Pick<ProjectsDeps, 'identity'>): Promise<number> {
  const { settings } = await deps.identity.getApplicationSettings({}, { actor: SERVICE });
  const days = settings?.deletionAdjournedPeriod ?? 0;
  // Never purge on a period identity did not state (an identity without the setting answers 0).
  if (days < 1) throw new Error('identity answered no deletion_adjourned_period');
  return days;
}

/**
 * Purges the projects marked `deletion_adjourned_period` days ago or more (GitLab's AdjournedProjectsDeletionCronWorker;
 * SKIP LOCKED: replicas share the work); how many went.
 */
export async function purgeDueProjects(deps: ProjectsDeps, batch = 50): Promise<number> {
  const periodDays = await deletionAdjournedPeriod(deps);
  return withTransaction(deps.pool, async (client) => {
    const due = await lockDueForDeletion(client, periodDays, batch);
    await recordProjectForksRemoved(client, deps.topic, await unlinkForksOfSources(client, { ids: due }), SERVICE);
    const gone = await deleteProjects(client, due);
    for (const p of gone) await recordProjectDeleted(client, deps.topic, p, SERVICE);
    return gone.length;
  });
}

/** Runs `purgeDueProjects` every `intervalMs` until stopped; failures are logged and retried. */
export function startDeletionPurge(deps: ProjectsDeps, logger: Logger, intervalMs: number): { stop(): Promise<void> } {
  return startPeriodicTask('project purge', () => purgeDueProjects(deps).then((n) => n && logger.info({ purged: n }, 'purged projects marked for deletion')), logger, intervalMs);
}
