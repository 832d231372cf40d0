import type { JobKind } from './job-rules';

/**
 * How repository jobs share a storage's worker: `concurrency` jobs at once per process, each stopped at its kind's time
 * limit (JOB_CONCURRENCY, JOB_TIME_LIMIT_MS, JOB_SLOW_TIME_LIMIT_MS).
 */
export interface JobCapacity {
  concurrency: number;
  /** create, remove: local, small, seconds. */
  quickTimeLimitMs: number;
  /** fork copy, import, mirror update, housekeeping: whole repositories, remote servers. */
  slowTimeLimitMs: number;
}

export const JOB_KINDS: readonly JobKind[] = ['create', 'remove', 'fork', 'import', 'mirror', 'housekeeping'];

/** Kinds that copy or rewrite whole repositories, some from servers we do not control: they may take minutes. */
const SLOW_KINDS: ReadonlySet<JobKind> = new Set<JobKind>(['fork', 'import', 'mirror', 'housekeeping']);
export const isSlowJob = (kind: JobKind): boolean => SLOW_KINDS.has(kind);

/**
 * Kinds that read a remote server: how long they take is up to whoever runs that server (one that trickles bytes costs
 * its owner nothing), so they never take the last free slot.
 */
const REMOTE_KINDS: ReadonlySet<JobKind> = new Set<JobKind>(['import', 'mirror']);
export const readsRemote = (kind: JobKind): boolean => REMOTE_KINDS.has(kind);
export const LOCAL_KINDS: readonly JobKind[] = JOB_KINDS.filter((k) => !readsRemote(k));

export const jobTimeLimitMs = (kind: JobKind, c: JobCapacity): number => (isSlowJob(kind) ? c.slowTimeLimitMs : c.quickTimeLimitMs);

/**
 * A claimed job stays claimed this long beyond its time limit (recording its outcome and statistics happen after git),
 * so no other worker takes it while it runs, and a crashed worker's job comes back soon after.
 */
export const LEASE_BEYOND_TIME_LIMIT_MS = 60_000;

/** Each kind's lease, for the claim. */
export function jobLeasesMs(c: JobCapacity): Record<JobKind, number> {
  return Object.fromEntries(JOB_KINDS.map((k) => [k, jobTimeLimitMs(k, c) + LEASE_BEYOND_TIME_LIMIT_MS])) as Record<JobKind, number>;
}

/**
 * What the next claim may take, given the kinds running: nothing when every slot is taken; no import or mirror update
 * when they fill all slots but one, so that other projects' creates, forks and removals always find a slot however many
 * imports from slow servers are queued; otherwise any kind. (One slot: any kind, one job at a time.)
 */
export function claimableKinds(running: readonly JobKind[], concurrency: number): readonly JobKind[] {
  if (running.length >= concurrency) return [];
  const remoteSlots = Math.max(1, concurrency - 1);
  return running.filter(readsRemote).length >= remoteSlots ? LOCAL_KINDS : JOB_KINDS;
}

/** The error a job stopped at its time limit records (its last_error, the log). */
export const timeLimitReached = (limitMs: number) => `the job's time limit (${limitMs} ms) was reached`;
