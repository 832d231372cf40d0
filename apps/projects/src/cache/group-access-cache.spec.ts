import { GroupAccessCache, type GroupLevels } from './group-access-cache';

/** A fetch that answers when told to, counting its calls. */
function gatedFetch(levels: GroupLevels) {
  const calls: Array<() => void> = [];
  const fetch = () => new Promise<GroupLevels>((resolve) => calls.push(() => resolve(levels)));
  return { fetch, calls, answer: () => calls.shift()!() };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupAccessCache', () => {
  const levels = new Map([[7, 30]]);

  it('asks once per user and answers later look-ups from what it kept', async () => {
    const cache = new GroupAccessCache({ ttlMs: 60_000, maxLevels: 100 });
    cache.setLive(true);
    const fetch = jest.fn(async () => levels);
    expect(await cache.levelsOf(1, fetch)).toBe(levels);
    expect(await cache.levelsOf(1, fetch)).toBe(levels);
    expect(await cache.levelsOf(2, fetch)).toBe(levels);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('keeps nothing until the subscription is live, nor after it went down', async () => {
    const cache = new GroupAccessCache({ ttlMs: 60_000, maxLevels: 100 });
    const fetch = jest.fn(async () => levels);
    await cache.levelsOf(1, fetch);
    await cache.levelsOf(1, fetch);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(cache.keeping).toBe(false);

    cache.setLive(true);
    await cache.levelsOf(1, fetch);
    await cache.levelsOf(1, fetch);
    expect(fetch).toHaveBeenCalledTimes(3);

    cache.setLive(false); // what was kept may miss the messages of the outage
    expect(cache.size).toBe(0);
    await cache.levelsOf(1, fetch);
    expect(fetch).toHaveBeenCalledTimes(4);
    expect(cache.size).toBe(0);
  });

  it('drops the users a change names, or everyone', async () => {
    const cache = new GroupAccessCache({ ttlMs: 60_000, maxLevels: 100 });
    cache.setLive(true);
    const fetch = jest.fn(async () => levels);
    for (const u of [1, 2, 3]) await cache.levelsOf(u, fetch);
    cache.invalidate({ users: [2] });
    for (const u of [1, 2, 3]) await cache.levelsOf(u, fetch);
    expect(fetch).toHaveBeenCalledTimes(4);
    cache.invalidate({ all: true });
    for (const u of [1, 2, 3]) await cache.levelsOf(u, fetch);
    expect(fetch).toHaveBeenCalledTimes(7);
  });

  it('shares a look-up in flight, but does not keep one that a change overtook, nor let later callers join it', async () => {
    const cache = new GroupAccessCache({ ttlMs: 60_000, maxLevels: 100 });
    cache.setLive(true);
    const before = gatedFetch(new Map([[7, 10]]));
    const first = cache.levelsOf(1, before.fetch);
    const joined = cache.levelsOf(1, before.fetch);
    await flush();
    expect(before.calls).toHaveLength(1);

    cache.invalidate({ users: [1] }); // the membership changed while identity was answering
    const after = gatedFetch(new Map([[7, 40]]));
    const fresh = cache.levelsOf(1, after.fetch);
    await flush();
    expect(after.calls).toHaveLength(1);

    before.answer();
    expect((await first).get(7)).toBe(10);
    expect((await joined).get(7)).toBe(10);
    expect(cache.size).toBe(0); // the overtaken answer was not kept
    after.answer();
    expect((await fresh).get(7)).toBe(40);
    expect((await cache.levelsOf(1, jest.fn())).get(7)).toBe(40);
  });

  it('forgets after the TTL, and keeps nothing when configured off', async () => {
    const cache = new GroupAccessCache({ ttlMs: 200, maxLevels: 100 });
    cache.setLive(true);
    const fetch = jest.fn(async () => levels);
    await cache.levelsOf(1, fetch);
    await cache.levelsOf(1, fetch);
    expect(fetch).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await cache.levelsOf(1, fetch);
    expect(fetch).toHaveBeenCalledTimes(2);
    const off = new GroupAccessCache({ ttlMs: 0, maxLevels: 100 });
    off.setLive(true);
    expect(off.enabled).toBe(false);
    expect(off.keeping).toBe(false);
  });

  it('is bounded by the levels it keeps, summed over users', async () => {
    const cache = new GroupAccessCache({ ttlMs: 60_000, maxLevels: 10 });
    cache.setLive(true);
    const four = new Map([[1, 10], [2, 10], [3, 10], [4, 10]]); // counts 5
    for (const u of [1, 2, 3]) await cache.levelsOf(u, async () => four);
    expect(cache.size).toBe(2);
  });
});
