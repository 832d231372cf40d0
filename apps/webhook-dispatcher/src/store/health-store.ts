import type { Pool, PoolClient } from 'pg';
import { HEALTHY, type HookHealth } from '../domain/auto-disable';

type Db = Pool | PoolClient;

export interface StoredHealth extends HookHealth {
  hookId: number;
  projectId: number;
  version: number;
}

function toHealth(r: Record<string, unknown>): StoredHealth {
  return {
    hookId: Number(r.hook_id), projectId: Number(r.project_id), recentFailures: r.recent_failures as number, disabledUntil: (r.disabled_until as Date | null) ?? null,
    permanentlyDisabled: r.permanently_disabled as boolean, lastFailureAt: (r.last_failure_at as Date | null) ?? null, version: Number(r.version),
  };
}

/** The hook's state, locked for this transaction (a healthy row is created when there is none). */
export async function lockHealth(db: PoolClient, hookId: number, projectId: number): Promise<StoredHealth> {
  await db.query('INSERT INTO hook_health (hook_id, project_id) VALUES ($1, $2) ON CONFLICT (hook_id) DO NOTHING', [hookId, projectId]);
  const { rows } = await db.query('SELECT * FROM hook_health WHERE hook_id = $1 FOR UPDATE', [hookId]);
  return toHealth(rows[0]);
}

/** The hook's state without a lock (healthy when unknown). */
export async function readHealth(db: Db, hookId: number): Promise<HookHealth> {
  const { rows } = await db.query('SELECT * FROM hook_health WHERE hook_id = $1', [hookId]);
  return rows[0] ? toHealth(rows[0]) : HEALTHY;
}

/** Writes a new state; answers the new version. */
export async function saveHealth(db: PoolClient, hookId: number, h: HookHealth): Promise<number> {
  const { rows } = await db.query(
    `UPDATE hook_health SET recent_failures = $2, disabled_until = $3, permanently_disabled = $4, last_failure_at = $5, version = version + 1
     WHERE hook_id = $1 RETURNING version`,
    [hookId, h.recentFailures, h.disabledUntil, h.permanentlyDisabled, h.lastFailureAt],
  );
  return Number(rows[0].version);
}

/** Which of these hooks GitLab would skip for new events (permanently disabled). */
export async function permanentlyDisabledAmong(db: Db, hookIds: number[]): Promise<Set<number>> {
  if (hookIds.length === 0) return new Set();
  const { rows } = await db.query('SELECT hook_id FROM hook_health WHERE hook_id = ANY($1::bigint[]) AND permanently_disabled', [hookIds]);
  return new Set(rows.map((r) => Number(r.hook_id)));
}

export async function deleteHealth(db: Db, hookId: number): Promise<void> {
  await db.query('DELETE FROM hook_health WHERE hook_id = $1', [hookId]);
}

/** Which of these hooks carry any failure state (the others are healthy, or have no row). */
export async function unhealthyAmong(db: Db, hookIds: number[]): Promise<Set<number>> {
  if (hookIds.length === 0) return new Set();
  const { rows } = await db.query(
    `SELECT hook_id FROM hook_health WHERE hook_id = ANY($1::bigint[])
       AND (recent_failures > 0 OR disabled_until IS NOT NULL OR permanently_disabled OR last_failure_at IS NOT NULL)`,
    [hookIds],
  );
  return new Set(rows.map((r) => Number(r.hook_id)));
}
