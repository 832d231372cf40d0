import type { JobKind } from './job-rules';

/**
 * How repository jobs share a storage's worker: `quickConcurrency` creates and removals at once per process, and
 * `concurrency` jobs of the other kinds beside them, each stopped at its kind's time limit (JOB_QUICK_CONCURRENCY,
 * JOB_CONCURRENCY, JOB_TIME_LIMIT_MS, JOB_SLOW_TIME_LIMIT_MS).
 */
export interface JobCapacity {
  /** Fork copies, imports, mirror updates and housekeeping at once. */
  concurrency: number;
  /**
   * Creates and removals at once, in slots of their own: each is a few small files and a transaction, mostly waiting on
   * the disk's and the database's syncs, so many overlap well, and a burst of new projects never waits behind copies.
   */
  quickConcurrency: number;
  /** create, remove: local, small, seconds. */
  quickTimeLimitMs: number;
  /** fork copy, import, mirror update, housekeeping: whole repositories, remote servers. */
  slowTimeLimitMs: number;
}

export const JOB_KINDS: readonly JobKind[] = ['create', 'remove', 'fork', 'import', 'mirror', 'housekeeping'];

/** Kinds that copy or rewrite whole repositories, some from servers we do not control: they may take minutes. */
const SLOW_KINDS: ReadonlySet<JobKind> = new Set<JobKind>(['fork', 'import', 'mirror', 'housekeeping']);
export const isSlowJob = (kind: JobKind): boolean => SLOW_KINDS.has(kind);
const QUICK_KINDS: readonly JobKind[] = JOB_KINDS.filter((k) => !isSlowJob(k));

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
 * What the next claim may take, given the kinds running: a create or removal while a quick slot is free; a fork copy,
 * import, mirror update or housekeeping while one of the `concurrency` slots is, but no import or mirror update when they
 * fill all of those but one, so that fork copies and housekeeping always find a slot however many imports from slow
 * servers are queued (one slot: any of them, one at a time). Nothing when both kinds of slot are full.
 */
export function claimableKinds(running: readonly JobKind[], capacity: Pick<JobCapacity, 'concurrency' | 'quickConcurrency'>): readonly JobKind[] {
  const quick = running.filter((k) => !isSlowJob(k)).length;
  const slow = running.filter(isSlowJob);
  const kinds: JobKind[] = quick < capacity.quickConcurrency ? [...QUICK_KINDS] : [];
  if (slow.length < capacity.concurrency) {
    const remoteSlots = Math.max(1, capacity.concurrency - 1);
    const remoteFull = slow.filter(readsRemote).length >= remoteSlots;
    kinds.push(...JOB_KINDS.filter((k) => isSlowJob(k) && !(remoteFull && readsRemote(k))));
  }
  return kinds;
}

/** The error a job stopped at its time limit records (its last_error, the log). */
export const timeLimitReached = (limitMs: number) => `the job's time limit (${limitMs} ms) was reached`;
