import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { eventually, freePort, startStack, type RunningStack } from '@glp/testing';

/**
 * Redis is the gateway's token cache, not a dependency: with its Redis down the gateway stays ready and keeps
 * serving (asking identity for every token), says so in a metric and one warning, and uses Redis again once it is
 * back. The stack gets a Redis of its own (the shared one serves the other tests).
 */
describe('gateway during a Redis outage', () => {
  let stack: RunningStack;
  let redisPort: number;
  let redisDir: string;
  let redis: ChildProcess | undefined;
  let projectId: number;

  const startRedis = async () => {
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDir], {
      stdio: 'ignore',
    });
    await eventually(async () => {
      const probe = new Redis(redisPort, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } finally {
        probe.disconnect();
      }
    }, 10000, 50);
  };
  const stopRedis = async () => {
    const r = redis;
    redis = undefined;
    if (!r || r.exitCode !== null) return;
    await new Promise((resolve) => {
      r.once('exit', resolve);
      r.kill('SIGKILL');
    });
  };
  const redisUpMetric = async () => {
    const text = await (await fetch(stack.metricsUrls.gateway)).text();
    return Number(/^gateway_redis_up(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1]);
  };
  const getProject = () => fetch(`${stack.apiUrl}/projects/${projectId}`, { headers: { 'PRIVATE-TOKEN': stack.rootToken } });
  const cachedTokens = async () => {
    const client = new Redis(redisPort, '127.0.0.1');
    try {
      return (await client.keys('glp:auth:*')).length;
    } finally {
      client.disconnect();
    }
  };

  beforeAll(async () => {
    redisPort = await freePort();
    redisDir = mkdtempSync(path.join(os.tmpdir(), 'glp-redis-'));
    await startRedis();
    // No in-process token cache here, so every request exercises the Redis tier.
    stack = await startStack({ name: 'e2e_redis', env: { REDIS_URL: `redis://127.0.0.1:${redisPort}`, AUTH_LOCAL_CACHE_TTL_MS: '0', LOG_LEVEL: 'info', ACCESS_LOG_LEVEL: 'debug' } });
    const res = await fetch(`${stack.apiUrl}/projects`, {
      method: 'POST', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'redis-outage' }),
    });
    expect(res.status).toBe(201);
    projectId = (await res.json()).id;
  });
  afterAll(async () => {
    await stack?.stop();
    await stopRedis();
    rmSync(redisDir, { recursive: true, force: true });
  });

  it('serves with the token cache while Redis is up', async () => {
    expect((await getProject()).status).toBe(200);
    expect(await cachedTokens()).toBe(1);
    expect(await redisUpMetric()).toBe(1);
  });

  it('keeps serving and stays ready while Redis is down, and says so', async () => {
    await stopRedis();
    await eventually(async () => (await redisUpMetric()) === 0, 10000);
    for (let i = 0; i < 20; i++) expect((await getProject()).status).toBe(200);
    const ready = await fetch(`${stack.url}/-/readiness`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', checks: { identity: 'ok', projects: 'ok' }, optional: { redis: 'down' } });
    expect(stack.logs()).toMatch(/"level":40[^\n]*redis unreachable: serving without the shared token cache/);
    // One warning for the outage, not one per request.
    expect(stack.logs().match(/redis unreachable/g)).toHaveLength(1);
  });

  it('uses Redis again once it is back', async () => {
    await startRedis(); // an empty Redis on the same port
    await eventually(async () => (await redisUpMetric()) === 1, 20000, 100);
    expect((await getProject()).status).toBe(200);
    expect(await cachedTokens()).toBe(1);
    expect(stack.logs()).toMatch(/redis reachable again: shared token cache back on/);
    const ready = await fetch(`${stack.url}/-/readiness`);
    expect((await ready.json()).optional).toEqual({ redis: 'ok' });
  });
});
