import { isUniqueViolation, withTransaction } from '@glp/db';
import { conflict, forbidden, invalid, notFound, recordNotFound, type Actor } from '@glp/service-kit';
import { canAdminGroup } from '../domain/group-policy';
import { memberErrors, memberUpdateRefusal, normalizeExpiry, wouldOrphanGroup } from '../domain/member-rules';
import { recordGroupMembershipChanged } from '../events/identity-events';
import {
  countOwners, deleteMember, findMember, inheritedAccess, insertMember, listMembers as listMemberRows, updateMember as updateMemberRow,
  type MemberWithUser,
} from '../store/group-members-store';
import { groupFacts, type Selector } from '../store/groups-store';
import { findUserById, findUserByUsername } from '../store/users-store';
import { callerId, loadCaller } from './caller';
import { readableGroup, type GroupsDeps } from './groups';

const today = () => new Date().toISOString().slice(0, 10);

export interface ListMembersInput {
  inherited: boolean;
  query: string;
  userIds: number[];
  page: number;
  perPage: number;
}

/** GET /groups/:id/members(/all): anyone who may read the group. */
export async function listMembers(deps: GroupsDeps, actor: Actor, sel: Selector, input: ListMembersInput): Promise<{ rows: MemberWithUser[]; total: number }> {
  const group = await readableGroup(deps.pool, await loadCaller(deps.pool, actor), sel);
  return listMemberRows(deps.pool, {
    groupId: group.id, inherited: input.inherited, query: input.query, userIds: input.userIds,
    limit: input.perPage, offset: (input.page - 1) * input.perPage,
  });
}

/** GET /groups/:id/members(/all)/:user_id. */
export async function getMember(deps: GroupsDeps, actor: Actor, sel: Selector, userId: number, inherited: boolean): Promise<MemberWithUser> {
  const { rows } = await listMembers(deps, actor, sel, { inherited, query: '', userIds: [userId], page: 1, perPage: 1 });
  if (!rows[0]) throw recordNotFound();
  return rows[0];
}

export interface AddMemberInput {
  userId: number;
  username: string;
  accessLevel: number;
  expiresAt: string;
}

/** POST /groups/:id/members: owners (GitLab's `admin_group_member`). */
export async function addMember(deps: GroupsDeps, actor: Actor, sel: Selector, input: AddMemberInput): Promise<MemberWithUser> {
  const caller = await loadCaller(deps.pool, actor);
  const group = await readableGroup(deps.pool, caller, sel);
  if (!canAdminGroup(caller, groupFacts(group))) throw forbidden();
  const user = input.userId ? await findUserById(deps.pool, input.userId) : await findUserByUsername(deps.pool, input.username);
  if (!user) throw notFound('User');
  const expiresAt = normalizeExpiry(input.expiresAt);
  let added: MemberWithUser;
  try {
    added = await withTransaction(deps.pool, async (client) => {
      if (await findMember(client, group.id, user.id)) throw conflict('Member already exists');
      const errors = memberErrors({ accessLevel: input.accessLevel, expiresAt }, { inherited: await inheritedAccess(client, group.id, user.id), today: today() });
      if (Object.keys(errors).length) throw invalid(errors);
      await insertMember(client, { groupId: group.id, userId: user.id, accessLevel: input.accessLevel, expiresAt, createdById: callerId(actor) || null });
      await recordGroupMembershipChanged(client, deps.topic, { groupId: group.id, userId: user.id, accessLevel: input.accessLevel, expiresAt }, actor);
      return (await findMember(client, group.id, user.id))!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('Member already exists');
    throw err;
  }
  await deps.groupAccess.changed({ users: [user.id] });
  return added;
}

export interface UpdateMemberInput {
  accessLevel: number;
  /** Undefined leaves the expiry; "" or "none" clears it. */
  expiresAt?: string;
}

/** PUT /groups/:id/members/:user_id: 404 for a non-member (whoever asks, once the group is readable), then owners; the last Owner of a top-level group cannot be demoted. */
export async function updateMember(deps: GroupsDeps, actor: Actor, sel: Selector, userId: number, input: UpdateMemberInput): Promise<MemberWithUser> {
  const caller = await loadCaller(deps.pool, actor);
  const group = await readableGroup(deps.pool, caller, sel);
  const callerCanAdmin = canAdminGroup(caller, groupFacts(group));
  const updated = await withTransaction(deps.pool, async (client) => {
    const member = await findMember(client, group.id, userId, true);
    // The member first (404 for a non-member, whoever asks), then the caller (403), as GitLab.
    const refusal = memberUpdateRefusal(callerCanAdmin, member && { level: member.access_level });
    if (!member || refusal === 'not_found') throw recordNotFound();
    if (refusal === 'forbidden') throw forbidden();
    const expiresAt = input.expiresAt === undefined ? member.expires_at : normalizeExpiry(input.expiresAt);
    const errors = memberErrors({ accessLevel: input.accessLevel, expiresAt }, { inherited: await inheritedAccess(client, group.id, userId), today: today() });
    if (expiresAt === member.expires_at) delete errors.expires_at; // an unchanged expiry is not re-validated
    if (Object.keys(errors).length) throw invalid(errors);
    const owners = await countOwners(client, group.id);
    if (wouldOrphanGroup({ currentLevel: member.access_level, newLevel: input.accessLevel }, { isTopLevel: !group.parent_id, owners })) throw forbidden();
    await updateMemberRow(client, group.id, userId, input.accessLevel, expiresAt);
    await recordGroupMembershipChanged(client, deps.topic, { groupId: group.id, userId, accessLevel: input.accessLevel, expiresAt }, actor);
    return (await findMember(client, group.id, userId))!;
  });
  await deps.groupAccess.changed({ users: [userId] });
  return updated;
}

/** DELETE /groups/:id/members/:user_id: owners, or the member leaving; never the last Owner of a top-level group. */
export async function removeMember(deps: GroupsDeps, actor: Actor, sel: Selector, userId: number): Promise<void> {
  const caller = await loadCaller(deps.pool, actor);
  const group = await readableGroup(deps.pool, caller, sel);
  const leaving = actor.kind === 'user' && actor.id === userId;
  if (!leaving && !canAdminGroup(caller, groupFacts(group))) throw forbidden();
  await withTransaction(deps.pool, async (client) => {
    const member = await findMember(client, group.id, userId, true);
    if (!member) throw recordNotFound();
    const owners = await countOwners(client, group.id);
    if (wouldOrphanGroup({ currentLevel: member.access_level, newLevel: 0 }, { isTopLevel: !group.parent_id, owners })) throw forbidden();
    await deleteMember(client, group.id, userId);
    await recordGroupMembershipChanged(client, deps.topic, { groupId: group.id, userId, accessLevel: 0, expiresAt: null }, actor);
  });
  await deps.groupAccess.changed({ users: [userId] });
}

