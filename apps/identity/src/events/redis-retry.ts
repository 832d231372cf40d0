import type { Logger } from '@glp/service-kit';

/**
 * Runs a Redis write (a cache deletion, an invalidation message) now; when Redis does not answer, again in the
 * background (200 ms, doubling to 5 s) until `retryForMs` has passed, so a change committed while Redis was away still
 * reaches the caches. `run` never throws.
 */
export class RetryingRedisWrites {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly logger: Logger, private readonly what: string, private readonly retryForMs: number) {}

  async run(send: () => Promise<void>): Promise<void> {
    try {
      await send();
    } catch (err) {
      this.logger.warn({ err }, `${this.what} failed; retrying in the background`);
      this.retry(send, Date.now(), 200);
    }
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private retry(send: () => Promise<void>, since: number, delay: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send().catch(() => {
        if (Date.now() - since < this.retryForMs) this.retry(send, since, Math.min(delay * 2, 5000));
        else this.logger.warn(`${this.what} gave up after ${this.retryForMs} ms; the caches' own TTL bounds it`);
      });
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }
}

/** A MULTI's answer as ioredis gives it: throws its first error, or when the transaction was aborted. */
export function multiSucceeded(results: [Error | null, unknown][] | null): void {
  const failed = results?.find(([err]) => err);
  if (!results || failed) throw failed?.[0] ?? new Error('redis transaction aborted');
}
