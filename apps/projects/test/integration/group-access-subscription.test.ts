import { Redis } from 'ioredis';
import { createLogger, encodeGroupAccessChange, groupAccessInvalidationChannel } from '@glp/service-kit';
import { eventually, infraFromEnv, uniqueName } from '@glp/testing';
import { GroupAccessCache } from '../../src/cache/group-access-cache';
import { subscribeToGroupAccessChanges } from '../../src/cache/group-access-subscription';

/**
 * The group access cache against a real Redis: it keeps levels only once its subscription is confirmed, drops the
 * users identity names on its deployment's channel (not another deployment's), and after its connection drops starts
 * again empty (messages sent meanwhile are lost to it).
 */
describe('group access invalidations over Redis', () => {
  const prefix = `${uniqueName('it_gaccess')}.`;
  const cache = new GroupAccessCache({ ttlMs: 600_000, maxLevels: 1000 });
  const levels = new Map([[7, 30]]);
  let redis: Redis;
  let subscription: { close(): void };

  const fetches = { count: 0 };
  const fetch = async () => {
    fetches.count++;
    return levels;
  };
  /** Looks user 5 up and says whether identity had to be asked. */
  const asked = async (userId = 5) => {
    const before = fetches.count;
    await cache.levelsOf(userId, fetch);
    return fetches.count > before;
  };

  beforeAll(async () => {
    redis = new Redis(infraFromEnv().redisUrl);
    subscription = subscribeToGroupAccessChanges(infraFromEnv().redisUrl, prefix, cache, createLogger('it-gaccess', 'silent'));
    await eventually(async () => cache.keeping, 10000);
  });
  afterAll(async () => {
    subscription?.close();
    redis?.disconnect();
  });

  it("drops the users named on its deployment's channel, and everyone on an 'all'", async () => {
    expect(await asked()).toBe(true);
    expect(await asked()).toBe(false);
    expect(await asked(6)).toBe(true);

    await redis.publish(groupAccessInvalidationChannel('other-deployment.'), encodeGroupAccessChange({ users: [5] }));
    await redis.publish(groupAccessInvalidationChannel(prefix), encodeGroupAccessChange({ users: [6] }));
    await eventually(async () => cache.size === 1, 5000, 10);
    expect(await asked()).toBe(false); // user 5 on another deployment's channel is another user
    expect(await asked(6)).toBe(true);

    await redis.publish(groupAccessInvalidationChannel(prefix), encodeGroupAccessChange({ all: true }));
    await eventually(async () => cache.size === 0, 5000, 10);
    expect(await asked()).toBe(true);
  });

  it('keeps nothing while its connection is down, and starts empty once it is subscribed again', async () => {
    expect(await asked()).toBe(false);
    const live = jest.spyOn(cache, 'setLive');
    const clients = await redis.client('LIST') as string;
    const id = /id=(\d+) [^\n]*name=(\S+)/g;
    const ours = [...clients.matchAll(id)].find((m) => m[2] === `${prefix}projects-group-access`);
    expect(ours).toBeDefined();
    await redis.client('KILL', 'ID', ours![1]);

    await eventually(async () => live.mock.calls.some(([v]) => v === false), 5000, 10);
    await eventually(async () => live.mock.calls.at(-1)?.[0] === true && cache.keeping, 10000, 10);
    expect(await asked()).toBe(true); // what was kept before the drop is gone
    expect(await asked()).toBe(false);
    live.mockRestore();
  });

  it('reads an unreadable message as a change of everyone', async () => {
    await asked();
    expect(cache.size).toBeGreaterThan(0);
    await redis.publish(groupAccessInvalidationChannel(prefix), 'not json');
    await eventually(async () => cache.size === 0, 5000, 10);
  });
});
