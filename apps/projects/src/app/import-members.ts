import { isForeignKeyViolation, isUniqueViolation, withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { forbidden, type Actor } from '@glp/service-kit';
import { projectMemberErrors } from '../domain/member-rules';
import { importedLevel, memberErrorSentence } from '../domain/sharing-rules';
import { ACCESS } from '../domain/visibility';
import { recordProjectMembershipChanged } from '../events/project-events';
import { directMembers, insertProjectMember, memberUserIds } from '../store/members-store';
import { insertProjectEvents } from '../store/project-events-store';
import { recordsJoin } from '../domain/project-event-rules';
import { upsertUsers } from '../store/users-replica-store';
import type { ProjectsDeps } from './deps';
import { inheritedMembers, withUsers } from './project-members';
import { readableProject } from './read-project';
import { requireAdminProject } from './sharing';

export interface ImportResult {
  /** "success", "error" when some members could not be imported, "failed" when the import did not complete. */
  status: 'success' | 'error' | 'failed';
  /** username → GitLab's error sentence. */
  errors: Record<string, string>;
  totalMembersCount: number;
  /** "failed" only: GitLab's message and reason. */
  failure?: { message: string; reason: string };
}

/**
 * GitLab's `ImportProjectTeamService` when `team.import` does not complete (its transaction raised, e.g. a member
 * added or a project deleted meanwhile): nothing is imported, and the API answers 422 with this message and reason.
 */
const IMPORT_FAILED = { message: 'Import failed', reason: 'import_failed_error' } as const;

const today = () => new Date().toISOString().slice(0, 10);

/**
 * POST /projects/:id/import_project_members/:project_id (`Members::ImportProjectTeamService`): Maintainer of the target
 * (403), the source readable (404 Project Not Found) and managed by the caller (403 Forbidden - Project). The source's
 * unexpired direct members that are not members of the target already are added at their level, never above the
 * importer's (`importedLevel`), with their expiry; a member the target's validations refuse (below an inherited group
 * level) is reported by username. One transaction, ProjectMembershipChanged per member added.
 */
export async function importProjectMembers(deps: ProjectsDeps, actor: Actor, req: projectsV1.ImportProjectMembersRequest): Promise<ImportResult> {
  const target = await readableProject(deps, actor, req.project?.selector);
  requireAdminProject(actor, target);
  // By an old path too, without 301/405: GitLab's `project_moved?` concerns only the route's `:id`.
  const source = await readableProject(deps, actor, req.source?.selector, { followRedirects: true });
  if (!actor.admin && source.access < ACCESS.MAINTAINER) throw forbidden('Project');
  const members = await withUsers(deps, (await directMembers(deps.pool, source.row.id, { query: '', userIds: [] })).rows);
  const existing = await memberUserIds(deps.pool, target.row.id, members.map((m) => m.user.id));
  const candidates = members.filter((m) => !existing.has(m.user.id));
  const inherited = new Map<number, number>();
  if (target.row.ns_kind === 'group' && candidates.length) {
    const ids = candidates.map((m) => m.user.id);
    for (const m of await inheritedMembers(deps.identity, target.row.namespace_id, { query: '', userIds: ids })) inherited.set(m.user.id, m.accessLevel);
  }
  const errors: Record<string, string> = {};
  const added: { userId: number; accessLevel: number; expiresAt: string | null }[] = [];
  for (const m of candidates) {
    const accessLevel = importedLevel(m.accessLevel, { admin: actor.admin, access: target.access });
    const groupLevel = inherited.get(m.user.id);
    const fieldErrors = projectMemberErrors({ accessLevel, expiresAt: m.expiresAt }, {
      inherited: groupLevel ? { level: groupLevel, groupName: target.row.ns_name } : undefined, today: today(),
    });
    if (accessLevel === ACCESS.OWNER && fieldErrors.access_level?.[0] === 'is not included in the list') delete fieldErrors.access_level; // Owners import as Owners for Owners
    if (Object.keys(fieldErrors).length) errors[m.user.username] = memberErrorSentence(fieldErrors);
    else added.push({ userId: m.user.id, accessLevel, expiresAt: m.expiresAt });
  }
  if (added.length) {
    try {
      await withTransaction(deps.pool, async (client) => {
        await upsertUsers(client, candidates.map((m) => m.user));
        for (const a of added) {
          await insertProjectMember(client, { projectId: target.row.id, ...a, createdBy: actor.kind === 'user' ? actor.id : null });
          await recordProjectMembershipChanged(client, deps.topic, { projectId: target.row.id, ...a }, actor);
        }
        await insertProjectEvents(client, target.row.id, 'joined', added.map((a) => a.userId).filter((id) => recordsJoin(target.row.ns_owner_id, id)));
      });
    } catch (err) {
      // A member inserted or a project deleted since the members were read: the write's constraints refuse it.
      if (!isUniqueViolation(err) && !isForeignKeyViolation(err)) throw err;
      return { status: 'failed', errors: {}, totalMembersCount: members.length, failure: IMPORT_FAILED };
    }
  }
  return { status: Object.keys(errors).length ? 'error' : 'success', errors, totalMembersCount: members.length };
}
