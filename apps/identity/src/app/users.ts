import { isUniqueViolation, withTransaction, type Pool } from '@glp/db';
import { conflict, forbidden, notFound, type Actor } from '@glp/service-kit';
import type { identityV1 } from '@glp/proto';
import { hashPassword } from '../domain/password';
import { changesAuthorization, userView, type UserView } from '../domain/user-policy';
import { rightsAndLimits, validateNewUser } from '../domain/user-rules';
import type { AuthCacheInvalidator } from '../events/auth-cache-invalidator';
import { recordNamespaceChanged, recordNamespaceDeleted, recordUserChanged, recordUserDeleted } from '../events/identity-events';
import { renamePersonalNamespace } from '../store/namespaces-store';
import { tokenDigestsOfUser } from '../store/tokens-store';
import type { UserRow } from '../store/user-rows';
import {
  deleteUserRow, findUserById, findUserByUsername, isSoleOwnerOfAGroup, listUsers as listUserRows, setUserState, takenIdentifiers, updateUserRow, usersByEmails,
} from '../store/users-store';

export interface UsersDeps {
  pool: Pool;
  topic: string;
  authCache: AuthCacheInvalidator;
  countLimit: number;
}

/** GET /users/:id (and by username): what the caller may see of the user; blocked users are 404 to non-admins. */
export async function getUser(pool: Pool, actor: Actor, sel: { id: number } | { username: string }): Promise<{ user: UserRow; view: UserView }> {
  const user = 'id' in sel ? await findUserById(pool, sel.id) : await findUserByUsername(pool, sel.username);
  const view = user && userView(actor, user);
  if (!user || !view) throw notFound('User');
  return { user, view };
}

export interface ListUsersInput {
  username: string;
  search: string;
  active: boolean;
  blocked: boolean;
  external?: boolean;
  orderBy: string;
  sort: string;
  page: number;
  perPage: number;
}

/** GET /users: administrators see everyone (UserWithAdmin); others active users only (UserBasic); `external` is admin-only. */
export async function listUsers(deps: UsersDeps, actor: Actor, input: ListUsersInput): Promise<{ rows: UserRow[]; total: number; view: 'admin' | 'basic' }> {
  if (input.external !== undefined && !actor.admin) throw forbidden();
  const orderBy = (['id', 'name', 'username', 'created_at', 'updated_at'] as const).find((o) => o === input.orderBy) ?? 'id';
  const { rows, total } = await listUserRows(deps.pool, {
    username: input.username,
    search: input.search,
    activeOnly: input.active || !actor.admin,
    blocked: input.blocked,
    external: input.external,
    orderBy: actor.admin ? orderBy : 'id',
    sort: actor.admin && input.sort === 'asc' ? 'asc' : 'desc',
    limit: input.perPage,
    offset: (input.page - 1) * input.perPage,
    countLimit: deps.countLimit,
  });
  return { rows, total, view: actor.admin ? 'admin' : 'basic' };
}

/** After a change that alters what the user's tokens may do: every gateway's cached answer for them goes. */
async function forgetTokensOf(deps: UsersDeps, userId: number): Promise<void> {
  await deps.authCache.invalidate(await tokenDigestsOfUser(deps.pool, userId));
}

/**
 * PUT /users/:id (administrators): GitLab's validations and 409s for taken e-mail/username; a new username moves the
 * personal namespace; UserChanged (and NamespaceChanged) go out in the same transaction.
 */
export async function updateUser(deps: UsersDeps, actor: Actor, req: identityV1.UpdateUserRequest): Promise<UserRow> {
  if (!actor.admin) throw forbidden();
  const before = await findUserById(deps.pool, req.id);
  if (!before) throw notFound('User');
  const next = {
    username: req.username ?? before.username,
    name: req.name ?? before.name,
    email: req.email ?? before.email,
    isAdmin: req.admin ?? before.is_admin,
    external: req.external ?? before.external,
    projectsLimit: req.projectsLimit ?? before.projects_limit,
    canCreateGroup: req.canCreateGroup ?? before.can_create_group,
    bio: req.bio ?? before.bio,
    location: req.location ?? before.location,
    publicEmail: req.publicEmail ?? before.public_email,
    websiteUrl: req.websiteUrl ?? before.website_url,
    organization: req.organization ?? before.organization,
    jobTitle: req.jobTitle ?? before.job_title,
    privateProfile: req.privateProfile ?? before.private_profile,
  };
  if (next.external !== before.external) {
    Object.assign(next, rightsAndLimits(next, { projectsLimit: req.projectsLimit !== undefined, canCreateGroup: req.canCreateGroup !== undefined }));
  }
  validateNewUser({ ...next, password: req.password, skipConfirmation: true });
  const passwordHash = req.password ? await hashPassword(req.password) : undefined;
  try {
    const after = await withTransaction(deps.pool, async (client) => {
      const taken = await takenIdentifiers(client, next.username, next.email);
      if (next.email.toLowerCase() !== before.email.toLowerCase() && taken.email) throw conflict('Email has already been taken');
      if (next.username.toLowerCase() !== before.username.toLowerCase() && taken.username) throw conflict('Username has already been taken');
      const row = await updateUserRow(client, before.id, { ...next, passwordHash });
      await recordUserChanged(client, deps.topic, row, actor);
      if (row.username !== before.username) {
        const ns = await renamePersonalNamespace(client, row.id, row.username);
        if (ns) await recordNamespaceChanged(client, deps.topic, ns, row, actor);
      }
      return row;
    });
    if (changesAuthorization(before, after)) await forgetTokensOf(deps, after.id);
    return after;
  } catch (err) {
    if (isUniqueViolation(err, 'users_email_lower_key')) throw conflict('Email has already been taken');
    if (isUniqueViolation(err)) throw conflict('Username has already been taken');
    throw err;
  }
}

/** POST /users/:id/block and /unblock (administrators): a blocked user's tokens stop on every gateway within a second. */
export async function setBlocked(deps: UsersDeps, actor: Actor, id: number, blocked: boolean): Promise<UserRow> {
  if (!actor.admin) throw forbidden();
  const before = await findUserById(deps.pool, id);
  if (!before) throw notFound('User');
  const state = blocked ? 'blocked' : 'active';
  if (before.state === state) return before;
  const after = await withTransaction(deps.pool, async (client) => {
    const row = await setUserState(client, id, state);
    await recordUserChanged(client, deps.topic, row, actor);
    return row;
  });
  await forgetTokensOf(deps, id);
  return after;
}

/**
 * DELETE /users/:id (administrators): the user, their tokens, memberships and personal namespace (so its projects, through
 * NamespaceDeleted) go; a sole Owner of a group is refused (409) unless `hardDelete`.
 */
export async function deleteUser(deps: UsersDeps, actor: Actor, id: number, hardDelete: boolean): Promise<void> {
  if (!actor.admin) throw forbidden();
  const user = await findUserById(deps.pool, id);
  if (!user) throw notFound('User');
  if (!hardDelete && (await isSoleOwnerOfAGroup(deps.pool, id))) throw conflict('User cannot be removed while is the sole-owner of a group');
  const digests = await tokenDigestsOfUser(deps.pool, id);
  await withTransaction(deps.pool, async (client) => {
    const ns = await deleteUserRow(client, id);
    if (ns) await recordNamespaceDeleted(client, deps.topic, { ...ns, kind: 'user' }, actor);
    await recordUserDeleted(client, deps.topic, id, actor);
  });
  await deps.authCache.invalidate(digests);
}

/** Which addresses belong to a user (push rules' member and committer checks): system actors only, at most 1,000. */
export async function findUsersByEmails(pool: Pool, actor: Actor, emails: readonly string[]): Promise<{ email: string; userId: number }[]> {
  if (actor.kind !== 'system') throw forbidden();
  const distinct = [...new Set(emails.filter((e) => e.length > 0 && e.length <= 255))].slice(0, 1000);
  return usersByEmails(pool, distinct);
}
