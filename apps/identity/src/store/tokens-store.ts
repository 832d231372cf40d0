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
