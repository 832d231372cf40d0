import type { Pool, PoolClient } from '@glp/db';
import { notifyWorker } from './jobs-store';

type Queryable = Pool | PoolClient;

export interface MirrorRow {
  project_id: number;
  enabled: boolean;
  update_status: string;
  last_update_started_at: Date | null;
  last_update_at: Date | null;
  last_successful_update_at: Date | null;
  last_error: string | null;
}

export async function findMirror(db: Queryable, projectId: number): Promise<MirrorRow | undefined> {
  const { rows } = await db.query<MirrorRow>(
    `SELECT project_id, enabled, update_status, last_update_started_at, last_update_at, last_successful_update_at, last_error
     FROM pull_mirrors WHERE project_id = $1`, [projectId]);
  return rows[0];
}

/** Mirroring on or off for a project; an enabled mirror is next due after `dueInMs` (default: now). */
export async function setMirrorEnabled(db: Queryable, projectId: number, enabled: boolean, dueInMs = 0): Promise<void> {
  await db.query(
    `INSERT INTO pull_mirrors (project_id, enabled, next_update_at) VALUES ($1, $2, now() + ($3 || ' milliseconds')::interval)
     ON CONFLICT (project_id) DO UPDATE SET enabled = $2, updated_at = now()`,
    [projectId, enabled, String(dueInMs)],
  );
}

/** Queues a mirror update (one at most per project: a second request while one is queued changes nothing). */
export async function queueMirrorUpdate(db: Queryable, projectId: number): Promise<void> {
  await db.query(
    `INSERT INTO repository_jobs (project_id, kind, payload) VALUES ($1, 'mirror', '{}')
     ON CONFLICT (project_id) WHERE kind = 'mirror' DO NOTHING`,
    [projectId],
  );
  await notifyWorker(db, projectId);
  await db.query(`UPDATE pull_mirrors SET update_status = 'scheduled', updated_at = now() WHERE project_id = $1 AND update_status <> 'started'`, [projectId]);
}

/** Enabled mirrors whose update is due, pushed one interval ahead (this replica queues them). */
export async function takeDueMirrors(db: PoolClient, intervalMs: number, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ project_id: number }>(
    `UPDATE pull_mirrors SET next_update_at = now() + ($1 || ' milliseconds')::interval
     WHERE project_id IN (SELECT project_id FROM pull_mirrors WHERE enabled AND next_update_at <= now() ORDER BY next_update_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING project_id`,
    [String(intervalMs), limit],
  );
  return rows.map((r) => r.project_id);
}

export async function markMirrorStarted(db: Queryable, projectId: number): Promise<void> {
  await db.query(`UPDATE pull_mirrors SET update_status = 'started', last_update_started_at = now(), updated_at = now() WHERE project_id = $1`, [projectId]);
}

/** How an update ended: finished (maybe with the diverged-refs error kept) or failed, and when the next is due. */
export async function markMirrorDone(
  db: Queryable, projectId: number, r: { ok: boolean; error: string | null; nextInMs: number },
): Promise<void> {
  await db.query(
    `UPDATE pull_mirrors SET update_status = $2, last_update_at = now(),
       last_successful_update_at = CASE WHEN $2 = 'finished' THEN now() ELSE last_successful_update_at END,
       last_error = $3, next_update_at = now() + ($4 || ' milliseconds')::interval, updated_at = now()
     WHERE project_id = $1`,
    [projectId, r.ok ? 'finished' : 'failed', r.error, String(r.nextInMs)],
  );
}

export async function deleteMirror(db: Queryable, projectId: number): Promise<void> {
  await db.query('DELETE FROM pull_mirrors WHERE project_id = $1', [projectId]);
}
