/** Sleeps `ms`; resolves early (never rejects) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Exponential backoff: initial, 2×, 4× … capped at max; reset() after a success. */
export class Backoff {
  private current: number;
  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {
    this.current = initialMs;
  }
  next(): number {
    const d = this.current;
    this.current = Math.min(this.current * 2, this.maxMs);
    return d;
  }
  reset(): void {
    this.current = this.initialMs;
  }
}

/**
 * A wake-up flag with waiting: notify() wakes the current wait() or, when nobody
 * waits, makes the next wait() return at once (no notification is lost).
 */
export class Wakeup {
  private pending = false;
  private waiter: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    this.waiter?.();
  }

  /** Waits for a notification, the timeout, or the abort signal. */
  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.pending && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.waiter = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
        this.waiter = done;
      });
    }
    this.pending = false;
  }
}
