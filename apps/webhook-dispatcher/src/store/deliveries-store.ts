import type { Pool, PoolClient } from 'pg';
import { channelName, notify } from './notify-channels';

type Db = Pool | PoolClient;

/** The NOTIFY channel idle workers of this schema listen on. */
export function deliveriesChannel(schema: string): string {
  return channelName(schema, 'deliveries');
}

/** Wakes idle workers at commit. */
export async function notifyDeliveries(db: Db): Promise<void> {
  await notify(db, 'deliveries');
}

/** One delivery per (event, hook); a hook already queued for the event is skipped. Answers how many were added. */
export async function insertDeliveries(db: Db, eventId: string, projectId: number, hookIds: number[]): Promise<number> {
  if (hookIds.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO deliveries (event_id, hook_id, project_id, idempotency_key)
     SELECT $1, h, $2, gen_random_uuid() FROM unnest($3::bigint[]) AS h
     ON CONFLICT (event_id, hook_id) DO NOTHING`,
    [eventId, projectId, hookIds],
  );
  return rowCount ?? 0;
}

export interface ClaimedDelivery {
  id: number;
  eventId: string;
  hookId: number;
  projectId: number;
  idempotencyKey: string;
  /** Attempts made before this one. */
  attempts: number;
  claimToken: string;
  trigger: string;
  payload: unknown;
  occurredAt: Date;
}

/**
 * Claims up to `limit` due deliveries (pending and due, or delivering with an expired lease: a crashed worker's) of
 * hooks that are not disabled, with SKIP LOCKED so replicas never take the same row; each gets a lease and a token.
 */
export async function claimDueDeliveries(db: Db, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query(
    `WITH due AS (
       SELECT x.id FROM deliveries x
       WHERE x.status IN ('pending', 'delivering') AND x.next_attempt_at <= now()
         AND NOT EXISTS (SELECT 1 FROM hook_health h WHERE h.hook_id = x.hook_id AND (h.permanently_disabled OR h.disabled_until > now()))
       ORDER BY x.next_attempt_at
       LIMIT $1
       FOR UPDATE OF x SKIP LOCKED)
     UPDATE deliveries d SET status = 'delivering', claim_token = gen_random_uuid(),
       locked_until = now() + make_interval(secs => $2::double precision / 1000), next_attempt_at = now() + make_interval(secs => $2::double precision / 1000),
       updated_at = now()
     FROM due, webhook_events e
     WHERE d.id = due.id AND e.event_id = d.event_id
     RETURNING d.id, d.event_id, d.hook_id, d.project_id, d.idempotency_key, d.attempts, d.claim_token, e.trigger, e.payload, e.occurred_at`,
    [limit, leaseMs],
  );
  return rows.map((r) => ({
    id: Number(r.id), eventId: r.event_id, hookId: Number(r.hook_id), projectId: Number(r.project_id), idempotencyKey: r.idempotency_key,
    attempts: r.attempts, claimToken: r.claim_token, trigger: r.trigger, payload: r.payload, occurredAt: r.occurred_at,
  }));
}

export type AttemptOutcome = { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; delayMs: number } | { status: 'dropped' };

/** Records the outcome of a claimed attempt, only while the claim is still ours (false: the lease was lost). */
export async function finishAttempt(db: Db, id: number, claimToken: string, outcome: AttemptOutcome, countsAsAttempt = true): Promise<boolean> {
  const delay = outcome.status === 'pending' ? outcome.delayMs : 0;
  const { rowCount } = await db.query(
    `UPDATE deliveries SET status = $3, attempts = attempts + $5, claim_token = NULL, locked_until = NULL,
       next_attempt_at = now() + make_interval(secs => $4::double precision / 1000), updated_at = now()
     WHERE id = $1 AND claim_token = $2 AND status = 'delivering'`,
    [id, claimToken, outcome.status, delay, countsAsAttempt ? 1 : 0],
  );
  return (rowCount ?? 0) > 0;
}

/** Gives claimed deliveries back (e.g. hooks did not answer) to be tried after `delayMs`, without counting an attempt. */
export async function releaseClaims(db: Db, claims: { id: number; claimToken: string }[], delayMs: number): Promise<void> {
  if (claims.length === 0) return;
  await db.query(
    `UPDATE deliveries d SET status = 'pending', claim_token = NULL, locked_until = NULL,
       next_attempt_at = now() + make_interval(secs => $3::double precision / 1000), updated_at = now()
     FROM unnest($1::bigint[], $2::uuid[]) AS c(id, token)
     WHERE d.id = c.id AND d.claim_token = c.token AND d.status = 'delivering'`,
    [claims.map((c) => c.id), claims.map((c) => c.claimToken), delayMs],
  );
}

/** A deleted hook's deliveries still open are dropped. */
export async function dropOpenDeliveries(db: Db, hookId: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE deliveries SET status = 'dropped', claim_token = NULL, locked_until = NULL, updated_at = now()
     WHERE hook_id = $1 AND status IN ('pending', 'delivering')`,
    [hookId],
  );
  return rowCount ?? 0;
}

/** Open deliveries (the queue depth). */
export async function countOpenDeliveries(db: Db): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::bigint AS n FROM deliveries WHERE status IN ('pending', 'delivering')`);
  return Number(rows[0].n);
}

export async function getDelivery(db: Db, id: number): Promise<{ id: number; hookId: number; status: string; attempts: number; idempotencyKey: string } | undefined> {
  const { rows } = await db.query('SELECT id, hook_id, status, attempts, idempotency_key FROM deliveries WHERE id = $1', [id]);
  const r = rows[0];
  return r ? { id: Number(r.id), hookId: Number(r.hook_id), status: r.status, attempts: r.attempts, idempotencyKey: r.idempotency_key } : undefined;
}

/** Finished deliveries older than the retention. */
export async function deleteOldDeliveries(db: Db, olderThanDays: number, limit = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM deliveries WHERE id IN (
       SELECT id FROM deliveries WHERE status IN ('succeeded', 'failed', 'dropped') AND updated_at < now() - make_interval(days => $1) LIMIT $2)`,
    [olderThanDays, limit],
  );
  return rowCount ?? 0;
}

/** A claimed attempt's outcome, for finishAttempts. */
export interface FinishedAttempt {
  id: number;
  claimToken: string;
  outcome: AttemptOutcome;
}

/**
 * finishAttempt for many deliveries in one statement (the workers' group commit); answers the ids whose claim was
 * still theirs.
 */
export async function finishAttempts(db: Db, finished: FinishedAttempt[]): Promise<Set<number>> {
  if (finished.length === 0) return new Set();
  const { rows } = await db.query(
    `UPDATE deliveries d SET status = v.status, attempts = d.attempts + 1, claim_token = NULL, locked_until = NULL,
       next_attempt_at = now() + make_interval(secs => v.delay_ms / 1000), updated_at = now()
     FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::double precision[]) AS v(id, token, status, delay_ms)
     WHERE d.id = v.id AND d.claim_token = v.token AND d.status = 'delivering'
     RETURNING d.id`,
    [
      finished.map((f) => f.id), finished.map((f) => f.claimToken), finished.map((f) => f.outcome.status),
      finished.map((f) => (f.outcome.status === 'pending' ? f.outcome.delayMs : 0)),
    ],
  );
  return new Set(rows.map((r) => Number(r.id)));
}
