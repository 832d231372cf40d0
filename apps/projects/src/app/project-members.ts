import { isUniqueViolation, withTransaction } from '@glp/db';
import type { identityV1, projectsV1 } from '@glp/proto';
import { conflict, DomainError, forbidden, invalid, notFound, recordNotFound, systemActor, type Actor } from '@glp/service-kit';
import { canManageMember, memberUpdateRefusal, normalizeExpiry, projectMemberErrors } from '../domain/member-rules';
import { recordsJoin } from '../domain/project-event-rules';
import { recordProjectMembershipChanged } from '../events/project-events';
import {
  deleteProjectMember, directMembers, findDirectMember, insertProjectMember, updateProjectMember, type ProjectMemberRow,
} from '../store/members-store';
import { insertProjectEvents } from '../store/project-events-store';
import { upsertUsers, usersByIds, type UserReplica } from '../store/users-replica-store';
import type { IdentityClient, ProjectsDeps } from './deps';
import { readableProject, type ReadableProject } from './read-project';

const SERVICE = systemActor('projects');
const today = () => new Date().toISOString().slice(0, 10);
/** Inherited members are read from identity 100 at a time, up to this many (GitLab's own pages stop at 100 too). */
const MAX_INHERITED = 5000;

/** A member as the API shows it: a direct project membership or one inherited from a group of the namespace. */
export interface MemberView {
  user: UserReplica;
  accessLevel: number;
  createdAt: Date;
  expiresAt: string | null;
  createdById: number | null;
  sourceKind: 'project' | 'group';
  sourceId: number;
  /** Who added the member, when known. */
  createdBy?: UserReplica;
}

function replicaOf(u: identityV1.User): UserReplica {
  return { id: u.id, username: u.username, name: u.name, state: u.state, avatar_url: u.avatarUrl };
}

/**
 * The users of these ids (rows that came without one): from the read model where it has them by now, else asked of
 * identity (once: they are stored) — self-healing. A user identity no longer has is absent from the answer. Also used
 * for starrers (app/stars.ts).
 */
export async function fetchMissingUsers(deps: ProjectsDeps, ids: number[]): Promise<Map<number, UserReplica>> {
  // Read again rather than "which are still missing": the user-created event may have filled the read model since the
  // caller's rows were read, and a user it now has must not be dropped from the answer (a member vanishing from
  // GET /projects/:id/members right after their first project, seen in CI).
  const users = new Map((await usersByIds(deps.pool, ids)).map((u) => [u.id, u]));
  const fetched: UserReplica[] = [];
  for (const id of ids) {
    if (users.has(id)) continue;
    try {
      const { user } = await deps.identity.getUser({ selector: { $case: 'id', value: id } });
      if (user) {
        const replica = replicaOf(user);
        users.set(id, replica);
        fetched.push(replica);
      }
    } catch (err) {
      if (!(err instanceof DomainError && err.kind === 'not_found')) throw err;
    }
  }
  await upsertUsers(deps.pool, fetched);
  return users;
}

/** Users of these rows that the read model lacks are asked of identity (once: they are stored) — self-healing. */
export async function withUsers(deps: ProjectsDeps, rows: ProjectMemberRow[]): Promise<MemberView[]> {
  const fetched = await fetchMissingUsers(deps, rows.filter((r) => !r.user).map((r) => r.user_id));
  return rows.flatMap((r) => {
    const user = r.user ?? fetched.get(r.user_id);
    if (!user) return []; // a user identity no longer has
    return [{
      user, accessLevel: r.access_level, createdAt: r.created_at, expiresAt: r.expires_at, createdById: r.created_by,
      sourceKind: 'project' as const, sourceId: r.project_id, createdBy: r.creator ?? undefined,
    }];
  });
}

/** Members of the namespace's groups (ancestors included), each user once with their highest level. */
export async function inheritedMembers(identity: IdentityClient, groupId: number, f: { query: string; userIds: number[] }): Promise<MemberView[]> {
  const out: MemberView[] = [];
  for (let page = 1; out.length < MAX_INHERITED; page++) {
    // As this service: it has checked that the caller may read the project; the group itself may be hidden from them.
    const { members } = await identity.listGroupMembers(
      { group: { selector: { $case: 'id', value: groupId } }, inherited: true, query: f.query, userIds: f.userIds, page, perPage: 100 },
      { actor: SERVICE },
    );
    for (const m of members) {
      out.push({
        user: replicaOf(m.user!), accessLevel: m.accessLevel, createdAt: m.createdAt ?? new Date(0), expiresAt: m.expiresAt || null,
        createdById: m.createdById || null, sourceKind: 'group', sourceId: m.groupId,
        createdBy: m.createdBy ? replicaOf(m.createdBy) : undefined,
      });
    }
    if (members.length < 100) break;
  }
  return out;
}

export interface ListInput {
  inherited: boolean;
  query: string;
  userIds: number[];
  page: number;
  perPage: number;
}

/** GET /projects/:id/members(/all): anyone who may read the project. */
export async function listMembers(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'],
  input: ListInput,
): Promise<{ members: MemberView[]; total: number }> {
  const { row } = await readableProject(deps, actor, sel);
  const offset = (input.page - 1) * input.perPage;
  if (!input.inherited || row.ns_kind !== 'group') {
    const { rows, total } = await directMembers(deps.pool, row.id, { query: input.query, userIds: input.userIds, page: { limit: input.perPage, offset } });
    return { members: await withUsers(deps, rows), total };
  }
  // Direct and inherited, merged: one entry per user, the highest level (the direct one on a tie), ordered by user id.
  const direct = await withUsers(deps, (await directMembers(deps.pool, row.id, { query: input.query, userIds: input.userIds })).rows);
  const inherited = await inheritedMembers(deps.identity, row.namespace_id, input);
  await upsertUsers(deps.pool, inherited.map((m) => m.user));
  const best = new Map<number, MemberView>();
  for (const m of [...direct, ...inherited]) {
    const seen = best.get(m.user.id);
    if (!seen || m.accessLevel > seen.accessLevel) best.set(m.user.id, m);
  }
  const all = [...best.values()].sort((a, b) => a.user.id - b.user.id);
  return { members: all.slice(offset, offset + input.perPage), total: all.length };
}

/** GET /projects/:id/members(/all)/:user_id. */
export async function getMember(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'],
  userId: number,
  inherited: boolean,
): Promise<MemberView> {
  const { members } = await listMembers(deps, actor, sel, { inherited, query: '', userIds: [userId], page: 1, perPage: 1 });
  if (!members[0]) throw recordNotFound();
  return members[0];
}

/** The user's inherited group level and the group's name, for GitLab's "should be greater than or equal" rule. */
async function inheritedLevel(deps: ProjectsDeps, project: ReadableProject, userId: number): Promise<{ level: number; groupName: string } | undefined> {
  if (project.row.ns_kind !== 'group') return undefined;
  const [m] = await inheritedMembers(deps.identity, project.row.namespace_id, { query: '', userIds: [userId] });
  return m ? { level: m.accessLevel, groupName: project.row.ns_name } : undefined;
}

async function findUser(deps: ProjectsDeps, userId: number, username: string): Promise<UserReplica> {
  try {
    const { user } = await deps.identity.getUser({ selector: userId ? { $case: 'id', value: userId } : { $case: 'username', value: username } });
    if (user) return replicaOf(user);
  } catch (err) {
    if (!(err instanceof DomainError && err.kind === 'not_found')) throw err;
  }
  throw notFound('User');
}

export interface AddInput {
  userId: number;
  username: string;
  accessLevel: number;
  expiresAt: string;
}

/** POST /projects/:id/members: Maintainers and above (GitLab's `admin_project_member`). */
export async function addMember(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], input: AddInput): Promise<MemberView> {
  const project = await readableProject(deps, actor, sel);
  if (!canManageMember(actor, project.access, { userId: input.userId, level: input.accessLevel })) throw forbidden();
  const user = await findUser(deps, input.userId, input.username);
  const expiresAt = normalizeExpiry(input.expiresAt);
  const errors = projectMemberErrors({ accessLevel: input.accessLevel, expiresAt }, { inherited: await inheritedLevel(deps, project, user.id), today: today() });
  if (await findDirectMember(deps.pool, project.row.id, user.id)) throw conflict('Member already exists');
  if (Object.keys(errors).length) throw invalid(errors);
  try {
    await withTransaction(deps.pool, async (client) => {
      await upsertUsers(client, [user]);
      await insertProjectMember(client, { projectId: project.row.id, userId: user.id, accessLevel: input.accessLevel, expiresAt, createdBy: actor.kind === 'user' ? actor.id : null });
      if (recordsJoin(project.row.ns_owner_id, user.id)) await insertProjectEvents(client, project.row.id, 'joined', [user.id]);
      await recordProjectMembershipChanged(client, deps.topic, { projectId: project.row.id, userId: user.id, accessLevel: input.accessLevel, expiresAt }, actor);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('Member already exists');
    throw err;
  }
  return (await withUsers(deps, [(await findDirectMember(deps.pool, project.row.id, user.id))!]))[0]!;
}

export interface UpdateInput {
  accessLevel: number;
  /** Undefined leaves the expiry; "" or "none" clears it. */
  expiresAt?: string;
}

/** PUT /projects/:id/members/:user_id: Maintainers and above; only Owners change an Owner. */
export async function updateMember(
  deps: ProjectsDeps,
  actor: Actor,
  sel: projectsV1.ProjectSelector['selector'],
  userId: number,
  input: UpdateInput,
): Promise<MemberView> {
  const project = await readableProject(deps, actor, sel);
  const inherited = await inheritedLevel(deps, project, userId);
  await withTransaction(deps.pool, async (client) => {
    const member = await findDirectMember(client, project.row.id, userId, true);
    // The member first (404 for a non-member, whoever asks), then the caller (403), as GitLab.
    const refusal = memberUpdateRefusal(actor, project.access, member && { userId, level: member.access_level });
    if (!member || refusal === 'not_found') throw recordNotFound();
    if (refusal === 'forbidden') throw forbidden();
    const expiresAt = input.expiresAt === undefined ? member.expires_at : normalizeExpiry(input.expiresAt);
    const errors = projectMemberErrors({ accessLevel: input.accessLevel, expiresAt }, { inherited, today: today() });
    if (expiresAt === member.expires_at) delete errors.expires_at; // an unchanged expiry is not re-validated
    if (Object.keys(errors).length) throw invalid(errors);
    await updateProjectMember(client, project.row.id, userId, input.accessLevel, expiresAt);
    await recordProjectMembershipChanged(client, deps.topic, { projectId: project.row.id, userId, accessLevel: input.accessLevel, expiresAt }, actor);
  });
  return (await withUsers(deps, [(await findDirectMember(deps.pool, project.row.id, userId))!]))[0]!;
}

/** DELETE /projects/:id/members/:user_id: Maintainers (Owners for an Owner), or the member leaving; never the namespace owner. */
export async function removeMember(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], userId: number): Promise<void> {
  const project = await readableProject(deps, actor, sel);
  const leaving = actor.kind === 'user' && actor.id === userId;
  await withTransaction(deps.pool, async (client) => {
    const member = await findDirectMember(client, project.row.id, userId, true);
    if (!member) throw recordNotFound();
    if (project.row.ns_owner_id === userId) throw forbidden(); // the personal namespace's owner stays the project's Owner
    if (!leaving && !canManageMember(actor, project.access, { userId, level: member.access_level })) throw forbidden();
    await deleteProjectMember(client, project.row.id, userId);
    await insertProjectEvents(client, project.row.id, 'left', [userId]);
    await recordProjectMembershipChanged(client, deps.topic, { projectId: project.row.id, userId, accessLevel: 0, expiresAt: null }, actor);
  });
}
