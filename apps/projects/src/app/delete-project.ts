import { withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { forbidden, rejected, systemActor, type Actor, type Logger } from '@glp/service-kit';
import { canRemoveProject, decideDeletion } from '../domain/deletion-rules';
import { recordProjectDeleted, recordProjectForksRemoved, recordProjectUpdated } from '../events/project-events';
import { deleteProjects, lockDueForDeletion, markForDeletion, unmarkForDeletion } from '../store/deletion-store';
import { unlinkForksOfSources } from '../store/forks-store';
import type { ProjectsDeps } from './deps';
import { readableProject, type ReadableProject } from './read-project';

export type DeletionDeps = ProjectsDeps;

const fullPathOf = (p: ReadableProject) => `${p.row.ns_full_path}/${p.row.path}`;

/**
 * DELETE /projects/:id (Owners, administrators). Without a delay the project goes at once: its row (members, stars and
 * its own fork relation cascade; its forks lose their source with ProjectForkRemoved) and ProjectDeleted in one transaction, so the other services drop what they hold for it. With a delay it
 * is marked (archived, `marked_for_deletion_on`) and purged when due; `permanently_remove` + the exact `full_path`
 * deletes a marked project at once. Returns whether it was only marked.
 */
export async function deleteProject(
  deps: DeletionDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], req: { permanentlyRemove: boolean; fullPath: string },
): Promise<{ marked: boolean }> {
  const project = await readableProject(deps, actor, sel);
  if (!canRemoveProject(actor, project.access)) throw forbidden();
  const decision = decideDeletion({ markedForDeletionOn: project.row.marked_for_deletion_on, fullPath: fullPathOf(project) }, req, deps.deletionDelayDays ?? 0);
  if (decision.kind === 'refuse') throw rejected(decision.message);
  await withTransaction(deps.pool, async (client) => {
    if (decision.kind === 'delete') {
      await recordProjectForksRemoved(client, deps.topic, await unlinkForksOfSources(client, { ids: [project.row.id] }), actor);
      for (const gone of await deleteProjects(client, [project.row.id])) await recordProjectDeleted(client, deps.topic, gone, actor);
      return;
    }
    await markForDeletion(client, project.row.id, decision.on, actor.kind === 'user' ? actor.id : null);
    await recordProjectUpdated(client, deps.topic, {
      id: project.row.id, pathWithNamespace: fullPathOf(project), visibility: project.row.visibility, archived: true,
      changed: ['marked_for_deletion_on', 'archived'], markedForDeletionOn: decision.on, repositoryStorage: project.row.repository_storage,
    }, actor);
  });
  return { marked: decision.kind === 'mark' };
}

/** POST /projects/:id/restore (Owners, administrators): off the deletion schedule, unarchived. */
export async function restoreProject(deps: DeletionDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector']): Promise<ReadableProject> {
  const project = await readableProject(deps, actor, sel);
  if (!canRemoveProject(actor, project.access)) throw forbidden();
  if (!project.row.marked_for_deletion_on) throw rejected('Project has not been marked for deletion');
  await withTransaction(deps.pool, async (client) => {
    await unmarkForDeletion(client, project.row.id);
    await recordProjectUpdated(client, deps.topic, {
      id: project.row.id, pathWithNamespace: fullPathOf(project), visibility: project.row.visibility, archived: false,
      changed: ['marked_for_deletion_on', 'archived'], markedForDeletionOn: null, repositoryStorage: project.row.repository_storage,
    }, actor);
  });
  return readableProject(deps, actor, sel);
}

const SERVICE = systemActor('projects');

/** Purges the projects whose deletion day has come (SKIP LOCKED: replicas share the work); how many went. */
export async function purgeDueProjects(deps: ProjectsDeps, batch = 50): Promise<number> {
  return withTransaction(deps.pool, async (client) => {
    const due = await lockDueForDeletion(client, batch);
    await recordProjectForksRemoved(client, deps.topic, await unlinkForksOfSources(client, { ids: due }), SERVICE);
    const gone = await deleteProjects(client, due);
    for (const p of gone) await recordProjectDeleted(client, deps.topic, p, SERVICE);
    return gone.length;
  });
}

/** Runs `purgeDueProjects` every `intervalMs` until stopped; failures are logged and retried. */
export function startDeletionPurge(deps: ProjectsDeps, logger: Logger, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = purgeDueProjects(deps)
      .then((n) => n && logger.info({ purged: n }, 'purged projects marked for deletion'))
      .catch((err: unknown) => logger.warn({ err }, 'project purge failed; retrying'));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
