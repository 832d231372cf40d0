import type { Pool, PoolClient } from '@glp/db';
import type { JobKind } from '../domain/job-rules';

type Queryable = Pool | PoolClient;

export interface JobRow {
  id: number;
  project_id: number;
  kind: JobKind;
  payload: Record<string, unknown>;
  attempts: number;
}

/** Wakes the job workers of this schema (`repository_jobs_<schema>`, delivered when the caller's transaction commits). */
export async function notifyWorker(db: Queryable, projectId: number): Promise<void> {
  await db.query("SELECT pg_notify('repository_jobs_' || current_schema(), $1)", [String(projectId)]);
}

/** Queues work for a project's repository (in the caller's transaction) and wakes the worker. */
export async function enqueueJob(db: PoolClient, projectId: number, kind: JobKind, payload: object): Promise<void> {
  await db.query('INSERT INTO repository_jobs (project_id, kind, payload) VALUES ($1, $2, $3)', [projectId, kind, JSON.stringify(payload)]);
  await notifyWorker(db, projectId);
}

/**
 * Claims the oldest due job of one of `kinds` whose project has no earlier job (a project's jobs run in order, one at a
 * time: a project never holds two slots), for its kind's lease: a worker that dies leaves it to be claimed again when
 * the lease ends. One statement, SKIP LOCKED, so replicas and slots never take the same job.
 */
export async function claimNextJob(db: Queryable, leasesMs: Record<JobKind, number>, kinds: readonly JobKind[]): Promise<JobRow | undefined> {
  if (kinds.length === 0) return undefined;
  const { rows } = await db.query<JobRow>(
    `UPDATE repository_jobs SET claimed_until = now() + ($1::jsonb ->> kind)::bigint * interval '1 millisecond', attempts = attempts + 1
     WHERE id = (
       SELECT j.id FROM repository_jobs j
       WHERE j.run_after <= now() AND (j.claimed_until IS NULL OR j.claimed_until < now()) AND j.kind = ANY($2::text[])
         AND NOT EXISTS (SELECT 1 FROM repository_jobs e WHERE e.project_id = j.project_id AND e.id < j.id)
       ORDER BY j.run_after, j.id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id, project_id, kind, payload, attempts`,
    [JSON.stringify(leasesMs), kinds],
  );
  return rows[0];
}

/** Done: the job goes (in the transaction that records its outcome). */
export async function completeJob(db: PoolClient, id: number): Promise<void> {
  await db.query('DELETE FROM repository_jobs WHERE id = $1', [id]);
}

/** Failed this attempt: released, to run again after `delayMs`, with the error kept. */
export async function retryJob(db: Queryable, id: number, delayMs: number, error: string): Promise<void> {
  await db.query(
    `UPDATE repository_jobs SET claimed_until = NULL, run_after = now() + ($2 || ' milliseconds')::interval, last_error = $3 WHERE id = $1`,
    [id, String(delayMs), error.slice(0, 2000)],
  );
}

/** Jobs not done yet (tests, metrics). */
export async function pendingJobs(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM repository_jobs');
  return rows[0]!.n;
}

/**
 * Queues a housekeeping job unless the project already has one queued or running (the partial unique index of migration
 * 0003: GitLab's housekeeping lease, atomic under concurrent requests). False when it has: the lease is taken.
 */
export async function enqueueHousekeepingJob(db: PoolClient, projectId: number, payload: object): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO repository_jobs (project_id, kind, payload) VALUES ($1, 'housekeeping', $2)
     ON CONFLICT (project_id) WHERE kind = 'housekeeping' DO NOTHING`,
    [projectId, JSON.stringify(payload)],
  );
  if (!rowCount) return false;
  await notifyWorker(db, projectId);
  return true;
}
