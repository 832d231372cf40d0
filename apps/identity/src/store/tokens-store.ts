import type { Pool, PoolClient } from '@glp/db';
import { TOKEN_COLUMNS, USER_COLUMNS, type TokenRow, type UserRow } from './user-rows';

type Queryable = Pool | PoolClient;

export async function insertToken(
  db: Queryable,
  t: { userId: number; name: string; description: string; digest: Buffer; scopes: string[]; expiresAt: string | null },
): Promise<TokenRow> {
  const { rows } = await db.query<TokenRow>(
    `INSERT INTO personal_access_tokens (user_id, name, description, token_digest, scopes, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6::date) RETURNING ${TOKEN_COLUMNS}`,
    [t.userId, t.name, t.description, t.digest, t.scopes, t.expiresAt],
  );
  return rows[0]!;
}

/** Inserts the token unless one with the same digest exists; returns whether it was inserted. */
export async function insertTokenIfAbsent(
  db: Queryable,
  t: { userId: number; name: string; digest: Buffer; scopes: string[] },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes) VALUES ($1, $2, $3, $4)
     ON CONFLICT (token_digest) DO NOTHING`,
    [t.userId, t.name, t.digest, t.scopes],
  );
  return rowCount === 1;
}

export async function countTokensOfUser(db: Queryable, userId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM personal_access_tokens WHERE user_id = $1', [userId]);
  return rows[0]!.n;
}

/** One indexed lookup: the token by digest, with its user (same schema). */
export async function findTokenWithUser(db: Queryable, digest: Buffer): Promise<{ token: TokenRow; user: UserRow } | undefined> {
  const { rows } = await db.query<UserRow & { t_id: number; t_name: string; t_description: string; t_scopes: string[];
    t_expires_at: string | null; t_revoked: boolean; t_last_used_at: Date | null; t_created_at: Date }>({
    name: 'token_with_user',
    text: `SELECT t.id AS t_id, t.name AS t_name, t.description AS t_description, t.scopes AS t_scopes,
            to_char(t.expires_at, 'YYYY-MM-DD') AS t_expires_at, t.revoked AS t_revoked,
            t.last_used_at AS t_last_used_at, t.created_at AS t_created_at, ${USER_COLUMNS.replace(/(^|,)\s*/g, '$1 u.')}
       FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_digest = $1`,
    values: [digest],
  });
  const r = rows[0];
  if (!r) return undefined;
  const { t_id, t_name, t_description, t_scopes, t_expires_at, t_revoked, t_last_used_at, t_created_at, ...user } = r;
  return {
    token: { id: t_id, user_id: user.id, name: t_name, description: t_description, scopes: t_scopes, expires_at: t_expires_at,
      revoked: t_revoked, last_used_at: t_last_used_at, created_at: t_created_at },
    user,
  };
}

/** Records use at most once a minute per token, so authentication stays a read. */
export async function touchToken(db: Queryable, id: number): Promise<void> {
  await db.query(
    `UPDATE personal_access_tokens SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

/** A token row of `personal_access_tokens t` with its user's state (`users u`), for listing and management. */
const TOKEN_WITH_STATE = `t.id, t.user_id, t.name, t.description, t.scopes, to_char(t.expires_at, 'YYYY-MM-DD') AS expires_at, t.revoked,
  t.last_used_at, t.created_at, u.state AS user_state`;

export type TokenWithState = TokenRow & { user_state: string };

export async function findTokenById(db: Queryable, id: number, forUpdate = false): Promise<TokenWithState | undefined> {
  const { rows } = await db.query<TokenWithState>(
    `SELECT ${TOKEN_WITH_STATE} FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
     WHERE t.id = $1${forUpdate ? ' FOR UPDATE OF t' : ''}`,
    [id],
  );
  return rows[0];
}

export interface TokenListFilter {
  userId: number;
  state: '' | 'active' | 'inactive';
  revoked?: boolean;
  search: string;
  limit: number;
  offset: number;
}

/** A page of tokens (by id, as GitLab's finder) with their user's state, and the total. */
export async function listTokens(db: Queryable, f: TokenListFilter): Promise<{ rows: TokenWithState[]; total: number }> {
  const params: unknown[] = [];
  const bind = (v: unknown) => `$${params.push(v)}`;
  const conds: string[] = [];
  if (f.userId) conds.push(`t.user_id = ${bind(f.userId)}`);
  const active = `(NOT t.revoked AND (t.expires_at IS NULL OR t.expires_at > current_date))`;
  if (f.state === 'active') conds.push(active);
  if (f.state === 'inactive') conds.push(`NOT ${active}`);
  if (f.revoked !== undefined) conds.push(`t.revoked = ${bind(f.revoked)}`);
  if (f.search) conds.push(`t.name ILIKE ${bind(`%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`);
  const where = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  const countParams = [...params];
  const [page, count] = await Promise.all([
    db.query<TokenWithState>(
      `SELECT ${TOKEN_WITH_STATE} FROM personal_access_tokens t JOIN users u ON u.id = t.user_id ${where} ORDER BY t.id LIMIT ${bind(f.limit)} OFFSET ${bind(f.offset)}`,
      params,
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM personal_access_tokens t ${where}`, countParams),
  ]);
  return { rows: page.rows, total: count.rows[0]!.n };
}

/** Revokes the token; its digest (for the auth cache), or undefined when it was revoked already. */
export async function revokeToken(db: Queryable, id: number): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ token_digest: Buffer }>(
    'UPDATE personal_access_tokens SET revoked = true WHERE id = $1 AND NOT revoked RETURNING token_digest',
    [id],
  );
  return rows[0]?.token_digest;
}

/** The digests of every token of a user (their auth cache entries go when the user's state or rights change). */
export async function tokenDigestsOfUser(db: Queryable, userId: number): Promise<Buffer[]> {
  const { rows } = await db.query<{ token_digest: Buffer }>('SELECT token_digest FROM personal_access_tokens WHERE user_id = $1', [userId]);
  return rows.map((r) => r.token_digest);
}
