import { isUniqueViolation, withTransaction, type Pool } from '@glp/db';
import { conflict, forbidden, type Actor } from '@glp/service-kit';
import type { identityV1 } from '@glp/proto';
import { hashPassword, randomPassword } from '../domain/password';
import { DEFAULT_PROJECTS_LIMIT, rightsAndLimits, validateNewUser, type NewUser } from '../domain/user-rules';
import { recordNamespaceChanged, recordUserCreated } from '../events/identity-events';
import { insertPersonalNamespace } from '../store/namespaces-store';
import { insertUser, setUserNamespace, takenIdentifiers } from '../store/users-store';
import type { UserRow } from '../store/user-rows';

export function newUserFromRequest(req: identityV1.CreateUserRequest): NewUser {
  const limits = rightsAndLimits(
    { external: req.external, projectsLimit: req.projectsLimit ?? DEFAULT_PROJECTS_LIMIT, canCreateGroup: req.canCreateGroup ?? true },
    { projectsLimit: req.projectsLimit !== undefined, canCreateGroup: req.canCreateGroup !== undefined },
  );
  return {
    username: req.username,
    name: req.name,
    email: req.email,
    password: req.password || undefined,
    isAdmin: req.admin,
    projectsLimit: limits.projectsLimit,
    canCreateGroup: limits.canCreateGroup,
    external: req.external,
    privateProfile: req.privateProfile,
    bio: req.bio,
    location: req.location,
    publicEmail: req.publicEmail,
    websiteUrl: req.websiteUrl,
    organization: req.organization,
    jobTitle: req.jobTitle,
    skipConfirmation: req.skipConfirmation,
  };
}

/**
 * Creates a user and their personal namespace in one transaction, with
 * UserCreated and NamespaceChanged in the outbox. Administrators only.
 */
export async function createUser(
  pool: Pool,
  topic: string,
  actor: Actor,
  input: NewUser & { randomPassword?: boolean },
): Promise<UserRow> {
  if (!actor.admin) throw forbidden();
  validateNewUser(input);
  const password = input.password ?? (input.randomPassword ? randomPassword() : undefined);
  const passwordHash = password ? await hashPassword(password) : null;
  try {
    return await withTransaction(pool, async (client) => {
      const taken = await takenIdentifiers(client, input.username, input.email);
      // GitLab answers 409 with the first clash, email before username.
      if (taken.email) throw conflict('Email has already been taken');
      if (taken.username) throw conflict('Username has already been taken');
      const user = await insertUser(client, { ...input, passwordHash });
      const ns = await insertPersonalNamespace(client, user);
      await setUserNamespace(client, user.id, ns.id);
      const created = { ...user, namespace_id: ns.id };
      await recordUserCreated(client, topic, created, actor);
      await recordNamespaceChanged(client, topic, ns, created, actor);
      return created;
    });
  } catch (err) {
    // Two concurrent creates: the unique index decides.
    if (isUniqueViolation(err, 'users_email_lower_key')) throw conflict('Email has already been taken');
    if (isUniqueViolation(err)) throw conflict('Username has already been taken');
    throw err;
  }
}
