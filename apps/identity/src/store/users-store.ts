import type { PoolClient, Pool } from '@glp/db';
import type { NewUser } from '../domain/user-rules';
import { USER_COLUMNS, type UserRow } from './user-rows';

type Queryable = Pool | PoolClient;

export async function insertUser(
  db: PoolClient,
  u: NewUser & { passwordHash: string | null; state?: string },
): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (username, name, email, state, is_admin, external, private_profile, projects_limit, can_create_group,
       bio, location, public_email, website_url, organization, job_title, password_hash, confirmed_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16, CASE WHEN $17 THEN now() END)
     RETURNING ${USER_COLUMNS}`,
    [
      u.username, u.name, u.email, u.state ?? 'active', u.isAdmin, u.external, u.privateProfile, u.projectsLimit,
      u.canCreateGroup, u.bio, u.location, u.publicEmail, u.websiteUrl, u.organization, u.jobTitle, u.passwordHash,
      u.skipConfirmation,
    ],
  );
  return rows[0]!;
}

export async function setUserNamespace(db: PoolClient, userId: number, namespaceId: number): Promise<void> {
  await db.query('UPDATE users SET namespace_id = $2 WHERE id = $1', [userId, namespaceId]);
}

export async function findUserById(db: Queryable, id: number): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0];
}

export async function findUserByUsername(db: Queryable, username: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(username) = lower($1)`, [username]);
  return rows[0];
}

/** Which of username / email are already taken (case-insensitive). */
export async function takenIdentifiers(db: Queryable, username: string, email: string): Promise<{ username: boolean; email: boolean }> {
  const { rows } = await db.query<{ username_taken: boolean; email_taken: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM users WHERE lower(username) = lower($1))
              OR EXISTS (SELECT 1 FROM namespaces WHERE parent_id IS NULL AND lower(path) = lower($1)) AS username_taken,
            EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($2)) AS email_taken`,
    [username, email],
  );
  return { username: rows[0]!.username_taken, email: rows[0]!.email_taken };
}
