import { Backoff, sleep, Wakeup } from './backoff';

describe('Backoff', () => {
  it('doubles up to the cap and resets', () => {
    const b = new Backoff(500, 5000);
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    b.reset();
    expect(b.next()).toBe(500);
  });
});

describe('Wakeup', () => {
  it('does not lose a notification sent while nobody waits', async () => {
    const w = new Wakeup();
    w.notify();
    const t0 = Date.now();
    await w.wait(5000);
    expect(Date.now() - t0).toBeLessThan(100);
  });

  it('wakes a waiter, times out, and returns early on abort', async () => {
    const w = new Wakeup();
    let t0 = Date.now();
    setTimeout(() => w.notify(), 20);
    await w.wait(5000);
    expect(Date.now() - t0).toBeLessThan(1000);

    t0 = Date.now();
    await w.wait(30);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);

    const ac = new AbortController();
    t0 = Date.now();
    setTimeout(() => ac.abort(), 20);
    await Promise.all([w.wait(5000, ac.signal), sleep(5000, ac.signal)]);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
