import type { Pool, PoolClient } from 'pg';
import type { StatusFilter } from '../domain/log-status-filter';

type Db = Pool | PoolClient;

export interface NewLog {
  hookId: number;
  deliveryId: number | null;
  eventId: string;
  url: string;
  trigger: string;
  requestHeaders: Record<string, string>;
  /** Only when the body sent is not the event's payload (a custom template). */
  requestData: unknown;
  responseHeaders: Record<string, string>;
  responseBody: string;
  responseStatus: string;
  internalErrorMessage: string | null;
  executionDuration: number;
  idempotencyKey: string;
}

export interface LogRow {
  id: number;
  hookId: number;
  deliveryId: number | null;
  eventId: string;
  url: string;
  trigger: string;
  requestHeaders: Record<string, string>;
  requestData: unknown;
  responseHeaders: Record<string, string>;
  responseBody: string;
  responseStatus: string;
  executionDuration: number;
  idempotencyKey: string;
  createdAt: Date;
}

export async function insertLog(db: Db, l: NewLog): Promise<number> {
  const { rows } = await db.query(
    `INSERT INTO web_hook_logs (hook_id, delivery_id, event_id, url, trigger, request_headers, request_data, response_headers, response_body,
       response_status, internal_error_message, execution_duration, idempotency_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
    [
      l.hookId, l.deliveryId, l.eventId, l.url, l.trigger, JSON.stringify(l.requestHeaders), l.requestData === undefined ? null : JSON.stringify(l.requestData),
      JSON.stringify(l.responseHeaders), l.responseBody.replace(/\u0000/g, ''), l.responseStatus, l.internalErrorMessage, l.executionDuration, l.idempotencyKey,
    ],
  );
  return Number(rows[0].id);
}

/** insertLog for many rows in one statement (the workers' group commit). */
export async function insertLogs(db: Db, logs: NewLog[]): Promise<void> {
  if (logs.length === 0) return;
  const col = <T>(f: (l: NewLog) => T) => logs.map(f);
  await db.query(
    `INSERT INTO web_hook_logs (hook_id, delivery_id, event_id, url, trigger, request_headers, request_data, response_headers, response_body,
       response_status, internal_error_message, execution_duration, idempotency_key)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::uuid[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::jsonb[], $9::text[],
       $10::text[], $11::text[], $12::double precision[], $13::uuid[])`,
    [
      col((l) => l.hookId), col((l) => l.deliveryId), col((l) => l.eventId), col((l) => l.url), col((l) => l.trigger),
      col((l) => JSON.stringify(l.requestHeaders)), col((l) => (l.requestData === undefined ? null : JSON.stringify(l.requestData))),
      col((l) => JSON.stringify(l.responseHeaders)), col((l) => l.responseBody.replace(/\u0000/g, '')), col((l) => l.responseStatus),
      col((l) => l.internalErrorMessage), col((l) => l.executionDuration), col((l) => l.idempotencyKey),
    ],
  );
}

const SELECT = `SELECT l.id, l.hook_id, l.delivery_id, l.event_id, l.url, l.trigger, l.request_headers, coalesce(l.request_data, e.payload, '{}'::jsonb) AS request_data,
  l.response_headers, l.response_body, l.response_status, l.execution_duration, l.idempotency_key, l.created_at
  FROM web_hook_logs l LEFT JOIN webhook_events e ON e.event_id = l.event_id`;

function toRow(r: Record<string, unknown>): LogRow {
  return {
    id: Number(r.id), hookId: Number(r.hook_id), deliveryId: r.delivery_id === null ? null : Number(r.delivery_id), eventId: r.event_id as string, url: r.url as string,
    trigger: r.trigger as string, requestHeaders: r.request_headers as Record<string, string>, requestData: r.request_data,
    responseHeaders: r.response_headers as Record<string, string>, responseBody: r.response_body as string, responseStatus: r.response_status as string,
    executionDuration: Number(r.execution_duration), idempotencyKey: r.idempotency_key as string, createdAt: r.created_at as Date,
  };
}

/** A hook's logs of the last `days` days, newest first (GitLab's `web_hook_logs.recent`), filtered by status. */
export async function listRecentLogs(
  db: Db,
  hookId: number,
  filter: StatusFilter | undefined,
  page: { limit: number; offset: number },
  days = 7,
): Promise<{ rows: LogRow[]; total: number }> {
  const params: unknown[] = [hookId, days];
  let where = `l.hook_id = $1 AND l.created_at > now() - make_interval(days => $2)`;
  if (filter) {
    params.push(filter.codes, filter.prefixes, filter.internalError);
    where += ` AND (l.response_status = ANY($3::text[])
      OR (l.response_status ~ '^[0-9]{3}$' AND left(l.response_status, 1) = ANY($4::text[]))
      OR ($5::boolean AND l.response_status = 'internal error'))`;
  }
  const total = await db.query(`SELECT count(*)::bigint AS n FROM web_hook_logs l WHERE ${where}`, params);
  const { rows } = await db.query(
    `${SELECT} WHERE ${where} ORDER BY l.created_at DESC, l.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { rows: rows.map(toRow), total: Number(total.rows[0].n) };
}

export async function getLog(db: Db, hookId: number, id: number): Promise<LogRow | undefined> {
  const { rows } = await db.query(`${SELECT} WHERE l.hook_id = $1 AND l.id = $2`, [hookId, id]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

export async function deleteOldLogs(db: Db, olderThanDays: number, limit = 5000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM web_hook_logs WHERE id IN (SELECT id FROM web_hook_logs WHERE created_at < now() - make_interval(days => $1) LIMIT $2)`,
    [olderThanDays, limit],
  );
  return rowCount ?? 0;
}
