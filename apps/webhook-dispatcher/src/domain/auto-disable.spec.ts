import { afterFailure, afterSuccess, alertStatus, disableBackoffMs, executable, HEALTHY, healthChanged, type HookHealth } from './auto-disable';

const policy = { baseMs: 60_000, maxMs: 86_400_000 };
const t0 = new Date('2025-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

/** n failures, each attempt started after the previous one was recorded and after any back-off. */
function fail(n: number, from: HookHealth = HEALTHY): { h: HookHealth; now: Date } {
  let h = from;
  let now = t0;
  for (let i = 0; i < n; i++) {
    now = new Date(Math.max(now.getTime(), h.disabledUntil?.getTime() ?? 0) + 1000);
    h = afterFailure(h, now, now, policy);
  }
  return { h, now };
}

describe('GitLab auto-disable', () => {
  it('keeps failures 1-3 as grace', () => {
    const { h, now } = fail(3);
    expect(h.recentFailures).toBe(3);
    expect(h.disabledUntil).toBeNull();
    expect(alertStatus(h, now)).toBe('executable');
  });

  it('disables temporarily from the 4th failure: 1 min, 2 min, 4 min ... capped at a day', () => {
    const { h, now } = fail(4);
    expect(h.disabledUntil!.getTime() - now.getTime()).toBe(60_000);
    expect(alertStatus(h, now)).toBe('temporarily_disabled');
    expect(executable(h, now)).toBe(false);
    expect(executable(h, new Date(h.disabledUntil!.getTime() + 1))).toBe(true);
    expect(alertStatus(h, new Date(h.disabledUntil!.getTime() + 1))).toBe('executable');
    const five = fail(1, h);
    expect(five.h.disabledUntil!.getTime() - five.now.getTime()).toBe(120_000);
    expect([3, 4, 5, 6, 14, 15, 30].map((before) => disableBackoffMs(before, policy))).toEqual([60_000, 120_000, 240_000, 480_000, 86_400_000, 86_400_000, 86_400_000]);
  });

  it('disables permanently on the 40th failure', () => {
    const { h, now } = fail(39);
    expect(alertStatus(h, now)).toBe('temporarily_disabled');
    const forty = fail(1, h);
    expect(forty.h.recentFailures).toBe(40);
    expect(forty.h.permanentlyDisabled).toBe(true);
    expect(alertStatus(forty.h, new Date(forty.h.disabledUntil!.getTime() + 1))).toBe('disabled');
    // Nothing more counts while disabled.
    expect(afterFailure(forty.h, at(10 ** 12), at(10 ** 12), policy)).toBe(forty.h);
  });

  it('counts a failure once for attempts started before the last recorded failure', () => {
    const first = afterFailure(HEALTHY, at(0), at(500), policy);
    expect(first.recentFailures).toBe(1);
    expect(afterFailure(first, at(100), at(600), policy)).toBe(first);
    expect(afterFailure(first, at(700), at(800), policy).recentFailures).toBe(2);
  });

  it('ignores failures while temporarily disabled (GitLab backoff! needs an executable hook)', () => {
    const { h, now } = fail(4);
    expect(afterFailure(h, new Date(now.getTime() + 10), new Date(now.getTime() + 20), policy)).toBe(h);
  });

  it('re-enables on success', () => {
    const { h } = fail(5);
    expect(afterSuccess()).toEqual(HEALTHY);
    expect(healthChanged(h, afterSuccess())).toBe(true);
    expect(healthChanged(HEALTHY, afterSuccess())).toBe(false);
  });
});
