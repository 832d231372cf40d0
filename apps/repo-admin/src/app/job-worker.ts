import type { Logger } from '@glp/service-kit';
import { claimableKinds, jobLeasesMs } from '../domain/job-capacity';
import type { JobKind } from '../domain/job-rules';
import { claimNextJob } from '../store/jobs-store';
import type { RepoAdminDeps } from './deps';
import { runJob } from './repository-jobs';

/**
 * Runs repository jobs, up to `deps.jobs.quickConcurrency` creates and removals and `deps.jobs.concurrency` others at
 * once: claims due jobs while a slot is free (`claimableKinds`), then waits for a notification (`repository_jobs` channel, sent by
 * the consumer's transaction), a job ending, or `pollMs`. Each job stops at its kind's time limit (`runJob`); `stop`
 * stops the jobs in hand and releases them.
 */
export function startJobWorker(deps: RepoAdminDeps, logger: Logger, pollMs: number): { stop(): Promise<void>; wake(): void } {
  let stopped = false;
  let wake: () => void = () => undefined;
  const running = new Map<number, { kind: JobKind; done: Promise<void> }>();
  const leases = jobLeasesMs(deps.jobs);
  const shutdown = new AbortController();

  const fill = async () => {
    while (!stopped) {
      const job = await claimNextJob(deps.pool, leases, claimableKinds([...running.values()].map((r) => r.kind), deps.jobs));
      if (!job) return;
      const done = runJob(deps, job, shutdown.signal)
        .catch((err: unknown) => logger.warn({ err, job: { id: job.id, kind: job.kind } }, 'repository job worker: job left for a later claim'))
        .finally(() => {
          running.delete(job.id);
          wake();
        });
      running.set(job.id, { kind: job.kind, done });
    }
  };

  const loop = (async () => {
    while (!stopped) {
      const woken = new Promise<void>((resolve) => {
        const t = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      try {
        await fill();
      } catch (err) {
        logger.warn({ err }, 'repository job worker: retrying');
      }
      await woken;
    }
  })();
  return {
    wake: () => wake(),
    async stop() {
      stopped = true;
      wake();
      await loop;
      // Jobs in hand stop now (their git killed) and are released for the next worker, rather than holding shutdown.
      shutdown.abort();
      await Promise.all([...running.values()].map((r) => r.done));
    },
  };
}
