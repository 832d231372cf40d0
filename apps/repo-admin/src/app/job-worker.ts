import type { Logger } from '@glp/service-kit';
import { claimNextJob } from '../store/jobs-store';
import type { RepoAdminDeps } from './deps';
import { runJob } from './repository-jobs';

/**
 * Runs repository jobs one after another: everything due, then waits for a notification (`repository_jobs` channel,
 * sent by the consumer's transaction) or `pollMs`. Stops after the job in hand.
 */
export function startJobWorker(deps: RepoAdminDeps, logger: Logger, pollMs: number): { stop(): Promise<void>; wake(): void } {
  let stopped = false;
  let wake: () => void = () => undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        const job = await claimNextJob(deps.pool, deps.jobLeaseMs);
        if (job) {
          await runJob(deps, job);
          continue;
        }
      } catch (err) {
        logger.warn({ err }, 'repository job worker: retrying');
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  })();
  return {
    wake: () => wake(),
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
