import { withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { forbidden, invalid, notFound, unauthenticated, type Actor } from '@glp/service-kit';
import { planPullMirrorEdit, type PullMirrorEdit } from '../domain/pull-mirror-rules';
import { ACCESS, effectiveAccess } from '../domain/visibility';
import { recordProjectUpdated } from '../events/project-events';
import { findImportSource } from '../store/import-sources-store';
import { lockProjectForEdit } from '../store/projects-store';
import type { ProjectsDeps } from './deps';
import { storeImportSource, vetImport } from './import-source';
import { accessFacts, callerId, readableProject, type ReadableProject } from './read-project';

/**
 * PUT /projects/:id/mirror/pull (GitLab's `Repositories::PullMirrors::UpdateService`): a project the caller can read
 * (else NOT_FOUND) and administers (Maintainer, else FORBIDDEN); a URL sent passes the outbound URL rules first
 * (`import_url is blocked: …`); then, on the locked row, the plan (domain/pull-mirror-rules.ts) is stored with
 * ProjectUpdated in one transaction when something changed. Nothing is written when it is refused.
 */
export async function updatePullMirror(
  deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], edit: PullMirrorEdit,
): Promise<ReadableProject> {
  if (actor.kind !== 'user') throw unauthenticated();
  const project = await readableProject(deps, actor, sel);
  if (!actor.admin && project.access < ACCESS.MAINTAINER) throw forbidden();
  if (edit.url !== undefined) await vetImport(deps, edit.url, undefined);
  const id = project.row.id;
  const row = await withTransaction(deps.pool, async (client) => {
    const current = await lockProjectForEdit(client, id, callerId(actor));
    if (!current || current.pending_delete) throw notFound('Project');
    const source = await findImportSource(client, id);
    const stored = source && deps.secretBox ? { url: deps.secretBox.open(source.urlSealed), mirror: mirrorOf(source) } : undefined;
    const plan = planPullMirrorEdit(stored, edit, actor.id);
    if (plan.kind === 'invalid') throw invalid(plan.errors);
    if (plan.changed.length === 0) return current;
    await storeImportSource(deps, client, id, { url: plan.url, mirror: plan.mirror });
    const updated = (await lockProjectForEdit(client, id, callerId(actor)))!;
    await recordProjectUpdated(client, deps.topic, {
      id, pathWithNamespace: `${updated.ns_full_path}/${updated.path}`, visibility: updated.visibility, archived: updated.archived,
      changed: plan.changed, markedForDeletionOn: updated.marked_for_deletion_on, repositoryStorage: updated.repository_storage,
    }, actor);
    return updated;
  });
  const facts = accessFacts(row, project.facts.groupAccess, project.facts.shareAccess);
  return { row, facts, access: effectiveAccess(actor, facts) };
}

const mirrorOf = (s: NonNullable<Awaited<ReturnType<typeof findImportSource>>>) => ({
  mirror: s.mirror, mirrorTriggerBuilds: s.mirrorTriggerBuilds, onlyMirrorProtectedBranches: s.onlyMirrorProtectedBranches,
  mirrorOverwritesDivergedBranches: s.mirrorOverwritesDivergedBranches, mirrorUserId: s.mirrorUserId, mirrorBranchRegex: s.mirrorBranchRegex,
});
