import type { Pool, PoolClient } from '@glp/db';
import type { SourceKind } from '../domain/access-request-rules';

type Queryable = Pool | PoolClient;

export interface RequestRow {
  source_kind: SourceKind;
  source_id: number;
  user_id: number;
  username: string;
  name: string;
  user_state: string;
  avatar_url: string;
  state: 'pending' | 'approving';
  approved_level: number | null;
  approved_by_id: number | null;
  requested_at: Date;
}

const COLUMNS = `source_kind, source_id, user_id, username, name, user_state, avatar_url, state, approved_level, approved_by_id, requested_at`;

/** Pending requests of a source, oldest first (GitLab orders requesters by id of the member row, i.e. request order). */
export async function listPending(db: Queryable, kind: SourceKind, sourceId: number, limit: number, offset: number): Promise<{ rows: RequestRow[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query<RequestRow>(
      `SELECT ${COLUMNS} FROM access_requests WHERE source_kind = $1 AND source_id = $2 AND state = 'pending'
       ORDER BY requested_at, user_id LIMIT $3 OFFSET $4`,
      [kind, sourceId, limit, offset],
    ),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM access_requests WHERE source_kind = $1 AND source_id = $2 AND state = 'pending'`,
      [kind, sourceId],
    ),
  ]);
  return { rows: page.rows, total: count.rows[0]!.n };
}

/** Whether the user has a request for the source, pending or being approved (GitLab's `source.requesters`). */
export async function requestExists(db: Queryable, kind: SourceKind, sourceId: number, userId: number): Promise<boolean> {
  const res = await db.query(`SELECT 1 FROM access_requests WHERE source_kind = $1 AND source_id = $2 AND user_id = $3`, [kind, sourceId, userId]);
  return (res.rowCount ?? 0) > 0;
}

/** Inserts a pending request; undefined when the user already has one for the source. */
export async function insertRequest(
  db: PoolClient,
  r: { kind: SourceKind; sourceId: number; userId: number; username: string; name: string; userState: string; avatarUrl: string },
): Promise<RequestRow | undefined> {
  const { rows } = await db.query<RequestRow>(
    `INSERT INTO access_requests (source_kind, source_id, user_id, username, name, user_state, avatar_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [r.kind, r.sourceId, r.userId, r.username, r.name, r.userState, r.avatarUrl],
  );
  return rows[0];
}

/** Marks a pending request as being approved (the durable intent); undefined when there is no pending request. */
export async function markApproving(db: PoolClient, kind: SourceKind, sourceId: number, userId: number, level: number, approverId: number): Promise<RequestRow | undefined> {
  const { rows } = await db.query<RequestRow>(
    `UPDATE access_requests SET state = 'approving', approved_level = $4, approved_by_id = $5, updated_at = now()
     WHERE source_kind = $1 AND source_id = $2 AND user_id = $3 AND state = 'pending' RETURNING ${COLUMNS}`,
    [kind, sourceId, userId, level, approverId],
  );
  return rows[0];
}

/** Back to pending (the owning service refused the membership). */
export async function unmarkApproving(db: Queryable, kind: SourceKind, sourceId: number, userId: number): Promise<void> {
  await db.query(
    `UPDATE access_requests SET state = 'pending', approved_level = NULL, approved_by_id = NULL, updated_at = now()
     WHERE source_kind = $1 AND source_id = $2 AND user_id = $3 AND state = 'approving'`,
    [kind, sourceId, userId],
  );
}

/** Deletes the request if it is in `state`; the deleted row, or undefined. */
export async function deleteRequest(db: PoolClient, kind: SourceKind, sourceId: number, userId: number, state: RequestRow['state']): Promise<RequestRow | undefined> {
  const { rows } = await db.query<RequestRow>(
    `DELETE FROM access_requests WHERE source_kind = $1 AND source_id = $2 AND user_id = $3 AND state = $4 RETURNING ${COLUMNS}`,
    [kind, sourceId, userId, state],
  );
  return rows[0];
}

/** Approvals whose intent is older than `olderThanMs` (interrupted), locked for this replica (others skip them). */
export async function lockStaleApprovals(db: PoolClient, olderThanMs: number, limit: number): Promise<RequestRow[]> {
  const { rows } = await db.query<RequestRow>(
    `SELECT ${COLUMNS} FROM access_requests WHERE state = 'approving' AND updated_at < now() - make_interval(secs => $1::float8 / 1000)
     ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [olderThanMs, limit],
  );
  return rows;
}

/** The source is gone (a deleted project or group): its requests go with it. */
export async function deleteRequestsOfSource(db: Queryable, kind: SourceKind, sourceId: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM access_requests WHERE source_kind = $1 AND source_id = $2', [kind, sourceId]);
  return rowCount ?? 0;
}
