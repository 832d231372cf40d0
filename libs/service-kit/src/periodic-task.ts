import type { Logger } from 'pino';

/**
 * Runs `task` every `intervalMs` until stopped (a background sweep: purges, removals, retries). A failure is logged as
 * `<what> failed; retrying` and the next tick tries again; `stop` waits for the run in progress. The timer does not
 * keep the process alive.
 */
export function startPeriodicTask(what: string, task: () => Promise<unknown>, logger: Logger, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = task().catch((err: unknown) => logger.warn({ err }, `${what} failed; retrying`));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
