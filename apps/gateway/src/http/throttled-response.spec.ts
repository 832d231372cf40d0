import { THROTTLED_BODY, throttledResponseHeaders } from './throttled-response';
import { Redis } from 'ioredis';
import { ApiRateLimits } from './api-rate-limits';

describe('throttledResponseHeaders (GitLab rack_attack.rb throttled_response_headers)', () => {
  it('computes GitLab example match data (limit 1/60s, count 12, epoch 1609833930)', () => {
    expect(throttledResponseHeaders('throttle_unauthenticated_api', { limit: 1, period: 60, count: 12, epochTime: 1609833930 })).toEqual({
      'RateLimit-Name': 'throttle_unauthenticated_api',
      'RateLimit-Limit': '1',
      'RateLimit-Observed': '12',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1609833960',
      'RateLimit-ResetTime': 'Tue, 05 Jan 2021 08:06:00 GMT',
      'Retry-After': '30',
    });
  });

  it('rounds the limit up to a 60-second window and counts down the remaining quota', () => {
    const h = throttledResponseHeaders('throttle_authenticated_api', { limit: 7200, period: 3600, count: 5, epochTime: 7200 + 1799 });
    expect(h['RateLimit-Limit']).toBe('120');
    expect(h['RateLimit-Remaining']).toBe('7195');
    expect(h['Retry-After']).toBe('1801');
    expect(h['RateLimit-Reset']).toBe('10800');
    expect(throttledResponseHeaders('x', { limit: 7, period: 3600, count: 1, epochTime: 0 })['RateLimit-Limit']).toBe('1');
    expect(throttledResponseHeaders('x', { limit: 10, period: 15, count: 1, epochTime: 15 })['RateLimit-Limit']).toBe('40');
    expect(throttledResponseHeaders('x', { limit: 10, period: 15, count: 1, epochTime: 15 })['Retry-After']).toBe('15');
  });

  it('has GitLab\'s default body', () => {
    expect(THROTTLED_BODY).toBe('Retry later\n');
  });
});

describe('ApiRateLimits (in process, no Redis)', () => {
  const settings = (enabled: boolean, requestsPerPeriod: number) => ({ enabled, requestsPerPeriod, periodInSeconds: 60 });

  it('throttles after the limit, per user and per IP separately, in epoch-aligned windows', async () => {
    let now = 120_000 + 10_000; // 10 s into a 60 s window
    const limits = new ApiRateLimits(undefined, { unauthenticated: settings(true, 1), authenticated: settings(true, 2) }, 'test', () => now);
    expect(await limits.hit({ userId: 1 })).toBeUndefined();
    expect(await limits.hit({ userId: 1 })).toBeUndefined();
    expect(await limits.hit({ userId: 1 })).toEqual({
      name: 'throttle_authenticated_api', match: { limit: 2, period: 60, count: 3, epochTime: 130 },
    });
    expect(await limits.hit({ userId: 2 })).toBeUndefined();
    expect(await limits.hit({ ip: '10.0.0.1' })).toBeUndefined();
    expect((await limits.hit({ ip: '10.0.0.1' }))?.name).toBe('throttle_unauthenticated_api');
    expect(await limits.hit({ ip: '10.0.0.2' })).toBeUndefined();
    now = 180_000; // the next window
    expect(await limits.hit({ userId: 1 })).toBeUndefined();
  });

  it('does nothing for a disabled throttle', async () => {
    const limits = new ApiRateLimits(undefined, { unauthenticated: settings(false, 1), authenticated: settings(true, 1) });
    expect(limits.enabled).toBe(true);
    for (let i = 0; i < 3; i++) expect(await limits.hit({ ip: '10.0.0.1' })).toBeUndefined();
    expect(new ApiRateLimits(undefined, { unauthenticated: settings(false, 1), authenticated: settings(false, 1) }).enabled).toBe(false);
  });

  it('counts in process while Redis is unreachable instead of failing requests', async () => {
    const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    redis.on('error', () => undefined);
    try {
      const limits = new ApiRateLimits(redis, { unauthenticated: settings(true, 1), authenticated: settings(false, 1) });
      expect(await limits.hit({ ip: '10.0.0.9' })).toBeUndefined();
      expect((await limits.hit({ ip: '10.0.0.9' }))?.match.count).toBe(2);
    } finally {
      redis.disconnect();
    }
  });
});
