/**
 * Retries of a failed delivery (beyond GitLab, whose WebHookWorker does not retry): exponential backoff with full
 * jitter. The n-th failed attempt waits a random delay in [d/2, d], d = min(maxMs, baseMs · 2^(n−1)); after maxAttempts
 * attempts the delivery is given up (status failed).
 */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  maxAttempts: number;
}

/** The ceiling d of the delay after the `attempt`-th failed attempt (1-based). */
export function retryCeilingMs(attempt: number, policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>): number {
  const exp = Math.min(Math.max(attempt, 1) - 1, 60);
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exp);
}

/** A delay in [d/2, d] for the `attempt`-th failed attempt; `random` in [0, 1). */
export function retryDelayMs(attempt: number, policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>, random: () => number = Math.random): number {
  const ceiling = retryCeilingMs(attempt, policy);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export type AfterFailure = { status: 'failed' } | { status: 'pending'; delayMs: number };

/** What happens to a delivery whose `attempts`-th attempt (counting this one) failed. */
export function afterFailedAttempt(attempts: number, policy: RetryPolicy, random: () => number = Math.random): AfterFailure {
  if (attempts >= policy.maxAttempts) return { status: 'failed' };
  return { status: 'pending', delayMs: retryDelayMs(attempts, policy, random) };
}
