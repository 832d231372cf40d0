import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * GitLab's `Gitlab::ApplicationRateLimiter` thresholds for hook tests (`web_hook_test`) and event resends
 * (`web_hook_event_resend`): N per minute per (project, user), counted in the gateways' shared Redis (an in-process
 * limiter stands in while Redis is unreachable). A limit of 0 turns the check off.
 */
export class HookRateLimits {
  private readonly test?: RateLimiterAbstract;
  private readonly resend?: RateLimiterAbstract;

  constructor(redis: Redis | undefined, limits: { test: number; resend: number }, prefix = 'glp:rl') {
    const make = (name: string, points: number): RateLimiterAbstract | undefined => {
      if (points <= 0) return undefined;
      const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: `${prefix}:${name}` });
      if (!redis) return memory;
      return new RateLimiterRedis({ storeClient: redis, points, duration: 60, keyPrefix: `${prefix}:${name}`, insuranceLimiter: memory });
    };
    this.test = make('web_hook_test', limits.test);
    this.resend = make('web_hook_event_resend', limits.resend);
  }

  /** Seconds to wait when throttled, undefined when the call may go ahead. */
  async throttled(kind: 'test' | 'resend', projectId: number, userId: number): Promise<number | undefined> {
    const limiter = kind === 'test' ? this.test : this.resend;
    if (!limiter) return undefined;
    try {
      await limiter.consume(`${projectId}:${userId}`);
      return undefined;
    } catch (res) {
      if (res instanceof RateLimiterRes) return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      return undefined; // the store failed and no insurance answered: let the call through
    }
  }
}
