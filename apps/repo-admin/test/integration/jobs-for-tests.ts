import type { Pool } from '@glp/db';
import { JOB_KINDS, jobLeasesMs, type JobCapacity } from '../../src/domain/job-capacity';
import { claimNextJob } from '../../src/store/jobs-store';

/** Job limits for tests that run jobs one by one (`claimAny` + `runJob`). */
export const TEST_JOBS: JobCapacity = { concurrency: 1, quickConcurrency: 1, quickTimeLimitMs: 60_000, slowTimeLimitMs: 60_000 };

/** The next due job of any kind, as a worker with a free slot would claim it. */
export const claimAny = (pool: Pool) => claimNextJob(pool, jobLeasesMs(TEST_JOBS), JOB_KINDS);
