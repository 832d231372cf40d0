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

export interface UserListFilter {
  username: string;
  search: string;
  /** Only users in state 'active' (non-administrators always). */
  activeOnly: boolean;
  blocked: boolean;
  external?: boolean;
  orderBy: 'id' | 'name' | 'username' | 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
  countLimit: number;
}

/** One page of users and the count (capped at countLimit; -1 beyond). */
export async function listUsers(db: Queryable, f: UserListFilter): Promise<{ rows: UserRow[]; total: number }> {
  const params: unknown[] = [];
  const bind = (v: unknown) => `$${params.push(v)}`;
  const conds: string[] = [];
  if (f.username) conds.push(`lower(username) = lower(${bind(f.username)})`);
  if (f.search) {
    const like = bind(`%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    conds.push(`(name ILIKE ${like} OR username ILIKE ${like} OR lower(email) = lower(${bind(f.search)}))`);
  }
  if (f.activeOnly) conds.push(`state = 'active'`);
  if (f.blocked) conds.push(`state = 'blocked'`);
  if (f.external !== undefined) conds.push(`external = ${bind(f.external)}`);
  const where = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  const dir = f.sort === 'asc' ? 'ASC' : 'DESC';
  const order = f.orderBy === 'id' ? `id ${dir}` : `${f.orderBy === 'name' || f.orderBy === 'username' ? `lower(${f.orderBy})` : f.orderBy} ${dir}, id ${dir}`;
  const countParams = [...params];
  const [page, count] = await Promise.all([
    db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users ${where} ORDER BY ${order} LIMIT ${bind(f.limit)} OFFSET ${bind(f.offset)}`, params),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM users ${where} LIMIT ${f.countLimit + 1}) c`, countParams),
  ]);
  const n = count.rows[0]!.n;
  return { rows: page.rows, total: n > f.countLimit ? -1 : n };
}

export interface UserChange {
  username: string;
  name: string;
  email: string;
  passwordHash?: string;
  isAdmin: boolean;
  external: boolean;
  projectsLimit: number;
  canCreateGroup: boolean;
  bio: string;
  location: string;
  publicEmail: string;
  websiteUrl: string;
  organization: string;
  jobTitle: string;
  privateProfile: boolean;
}

export async function updateUserRow(db: PoolClient, id: number, c: UserChange): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET username = $2, name = $3, email = $4, password_hash = COALESCE($5, password_hash), is_admin = $6, external = $7,
       projects_limit = $8, can_create_group = $9, bio = $10, location = $11, public_email = $12, website_url = $13,
       organization = $14, job_title = $15, private_profile = $16, updated_at = now()
     WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    [id, c.username, c.name, c.email, c.passwordHash ?? null, c.isAdmin, c.external, c.projectsLimit, c.canCreateGroup, c.bio,
      c.location, c.publicEmail, c.websiteUrl, c.organization, c.jobTitle, c.privateProfile],
  );
  return rows[0]!;
}

export async function setUserState(db: PoolClient, id: number, state: 'active' | 'blocked'): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(`UPDATE users SET state = $2, updated_at = now() WHERE id = $1 RETURNING ${USER_COLUMNS}`, [id, state]);
  return rows[0]!;
}

/** Whether the user is the only unexpired Owner of some group (GitLab refuses a soft delete then). */
export async function isSoleOwnerOfAGroup(db: Queryable, userId: number): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM group_members gm WHERE gm.user_id = $1 AND gm.access_level = 50
       AND NOT EXISTS (SELECT 1 FROM group_members o WHERE o.group_id = gm.group_id AND o.user_id <> $1 AND o.access_level = 50
                         AND (o.expires_at IS NULL OR o.expires_at > current_date))
     LIMIT 1`,
    [userId],
  );
  return rows.length > 0;
}

/** Deletes the user and their personal namespace (memberships and tokens cascade); the namespace row that went. */
export async function deleteUserRow(db: PoolClient, id: number): Promise<{ id: number; full_path: string } | undefined> {
  await db.query('UPDATE users SET namespace_id = NULL WHERE id = $1', [id]);
  const ns = await db.query<{ id: number; full_path: string }>(
    `DELETE FROM namespaces WHERE owner_id = $1 AND kind = 'user' RETURNING id, full_path`,
    [id],
  );
  await db.query('DELETE FROM users WHERE id = $1', [id]);
  return ns.rows[0];
}

/**
 * The users owning any of these e-mail addresses (primary or public, case-insensitive: GitLab's `find_by_any_email`), as
 * (address as asked, user id). One query for the batch; blocked users count (they are users).
 */
export async function usersByEmails(db: Queryable, emails: readonly string[]): Promise<{ email: string; userId: number }[]> {
  if (emails.length === 0) return [];
  const { rows } = await db.query<{ email: string; id: string }>(
    `SELECT e.email, u.id FROM unnest($1::text[]) AS e(email)
     JOIN users u ON lower(u.email) = lower(e.email) OR (u.public_email <> '' AND lower(u.public_email) = lower(e.email))`,
    [emails],
  );
  return rows.map((r) => ({ email: r.email, userId: Number(r.id) }));
}
