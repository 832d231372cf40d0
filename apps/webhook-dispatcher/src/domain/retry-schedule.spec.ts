import { afterFailedAttempt, retryCeilingMs, retryDelayMs } from './retry-schedule';

const policy = { baseMs: 10_000, maxMs: 3_600_000, maxAttempts: 12 };

describe('retry schedule', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryCeilingMs(n, policy))).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
    expect(retryCeilingMs(9, policy)).toBe(2_560_000);
    expect(retryCeilingMs(10, policy)).toBe(3_600_000);
    expect(retryCeilingMs(500, policy)).toBe(3_600_000);
  });

  it('jitters in [d/2, d]', () => {
    expect(retryDelayMs(3, policy, () => 0)).toBe(20_000);
    expect(retryDelayMs(3, policy, () => 0.999999)).toBe(40_000);
    for (let i = 0; i < 100; i++) {
      const d = retryDelayMs(2, policy);
      expect(d).toBeGreaterThanOrEqual(10_000);
      expect(d).toBeLessThanOrEqual(20_000);
    }
  });

  it('gives up after the last attempt', () => {
    expect(afterFailedAttempt(11, policy, () => 0)).toEqual({ status: 'pending', delayMs: 1_800_000 });
    expect(afterFailedAttempt(12, policy)).toEqual({ status: 'failed' });
    expect(afterFailedAttempt(1, { ...policy, maxAttempts: 1 })).toEqual({ status: 'failed' });
  });
});
