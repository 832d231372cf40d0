import { Redis } from 'ioredis';
import { startStack, type RunningStack } from '@glp/testing';

/**
 * GitLab's Rack::Attack API throttles (lib/gitlab/rack_attack.rb, lib/gitlab/rack_attack/request.rb) with small limits:
 * per user for requests with a valid token, per IP otherwise; 429 "Retry later\n" with RateLimit-* and Retry-After.
 */
const PERIOD = 3600;
describe('API rate limits through the gateway', () => {
  let stack: RunningStack;
  let redis: Redis;
  let prefix: string;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const get = async (path: string, token?: string) => {
    const res = await fetch(`${stack.apiUrl}${path}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${stack.apiUrl}${path}`, {
      method: 'POST', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    return (await res.json()) as { id: number; token: string };
  };
  const expectThrottled = (res: { status: number; headers: Headers; text: string }, name: string, limit: number, observed: number) => {
    expect(res.status).toBe(429);
    expect(res.text).toBe('Retry later\n');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('ratelimit-name')).toBe(name);
    expect(res.headers.get('ratelimit-limit')).toBe(String(Math.ceil((limit * 60) / PERIOD)));
    expect(res.headers.get('ratelimit-observed')).toBe(String(observed));
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    const retryAfter = res.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    const reset = Number(res.headers.get('ratelimit-reset'));
    expect(reset % PERIOD).toBe(0);
    const now = Math.floor(Date.now() / 1000);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(PERIOD);
    expect(Math.abs(reset - Number(retryAfter) - now)).toBeLessThanOrEqual(2);
    expect(res.headers.get('ratelimit-resettime')).toBe(new Date(reset * 1000).toUTCString());
  };

  beforeAll(async () => {
    // The windows are aligned to the epoch (Rack::Attack's): do not straddle a boundary.
    const toBoundary = PERIOD - (Math.floor(Date.now() / 1000) % PERIOD);
    if (toBoundary < 120) await new Promise((r) => setTimeout(r, (toBoundary + 1) * 1000));
    stack = await startStack({
      name: 'e2e_rate_limits',
      env: {
        THROTTLE_AUTHENTICATED_API_ENABLED: 'true', THROTTLE_AUTHENTICATED_API_REQUESTS_PER_PERIOD: '4', THROTTLE_AUTHENTICATED_API_PERIOD_IN_SECONDS: String(PERIOD),
        THROTTLE_UNAUTHENTICATED_API_ENABLED: 'true', THROTTLE_UNAUTHENTICATED_API_REQUESTS_PER_PERIOD: '3', THROTTLE_UNAUTHENTICATED_API_PERIOD_IN_SECONDS: String(PERIOD),
      },
    });
    // The stack gives its gateway a prefix of its own (RATE_LIMIT_KEY_PREFIX).
    prefix = stack.serviceEnv('gateway').env.RATE_LIMIT_KEY_PREFIX!;
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    // Four root requests: exactly root's limit.
    for (const name of ['alice', 'bob']) {
      ids[name] = (await post('/users', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })).id;
      tokens[name] = (await post(`/users/${ids[name]}/personal_access_tokens`, { name: 'e2e', scopes: ['api'] })).token;
    }
  }, 300_000);
  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  it('throttles a user after the limit, with GitLab\'s 429, body and headers, counted per user in Redis', async () => {
    for (let i = 0; i < 4; i++) {
      const ok = await get('/user', tokens.alice);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-name')).toBeNull();
    }
    expectThrottled(await get('/user', tokens.alice), 'throttle_authenticated_api', 4, 5);
    const window = Math.floor(Date.now() / 1000 / PERIOD);
    expect(await redis.get(`${prefix}:throttle_authenticated_api:${window}:user:${ids.alice}`)).toBe('5');
    // The token's owner, whichever way the token comes.
    expectThrottled(await get(`/user?private_token=${tokens.alice}`), 'throttle_authenticated_api', 4, 6);
  });

  it('does not throttle another user', async () => {
    const res = await get('/user', tokens.bob);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).username).toBe('bob');
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('throttles unauthenticated requests per IP, apart from the users of that IP', async () => {
    for (let i = 0; i < 3; i++) expect((await get('/projects')).status).toBe(200);
    expectThrottled(await get('/projects'), 'throttle_unauthenticated_api', 3, 4);
    // A token that does not resolve is unauthenticated (GitLab's `unauthenticated?`): the IP throttle answers before the 401.
    expectThrottled(await get('/user', 'glpat-not-a-real-token'), 'throttle_unauthenticated_api', 3, 5);
    const window = Math.floor(Date.now() / 1000 / PERIOD);
    const ipKeys = await redis.keys(`${prefix}:throttle_unauthenticated_api:${window}:*`);
    expect(ipKeys).toHaveLength(1);
    expect(await redis.get(ipKeys[0]!)).toBe('5');
    // Bob, from the same IP, is counted as himself.
    expect((await get('/user', tokens.bob)).status).toBe(200);
  });
});
