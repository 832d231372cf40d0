import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { TokenAuthenticator } from '../auth/token-authenticator';
import { tokenFromRequest } from '../auth/token-source';
import { THROTTLED_BODY, throttledResponseHeaders, type ThrottleMatch } from './throttled-response';

export interface ThrottleSettings {
  enabled: boolean;
  requestsPerPeriod: number;
  periodInSeconds: number;
}

type ThrottleName = 'throttle_unauthenticated_api' | 'throttle_authenticated_api';

interface Throttle {
  name: ThrottleName;
  limit: number;
  period: number;
  limiter: RateLimiterAbstract;
}

/**
 * GitLab's Rack::Attack API throttles (lib/gitlab/rack_attack.rb `configure_throttles`, lib/gitlab/rack_attack/request.rb
 * `throttle_unauthenticated_api?` / `throttle_authenticated_api?`): per IP for requests without a valid token, per user
 * otherwise. Counters live in the gateways' shared Redis in fixed windows aligned to the epoch (Rack::Attack's
 * `key:<now / period>`); an in-process limiter stands in while Redis is unreachable.
 */
export class ApiRateLimits {
  private readonly unauthenticated?: Throttle;
  private readonly authenticated?: Throttle;

  constructor(
    redis: Redis | undefined,
    settings: { unauthenticated: ThrottleSettings; authenticated: ThrottleSettings },
    prefix = 'glp:rl',
    private readonly now: () => number = Date.now,
  ) {
    const make = (name: ThrottleName, s: ThrottleSettings): Throttle | undefined => {
      if (!s.enabled) return undefined;
      const opts = { points: s.requestsPerPeriod, duration: s.periodInSeconds, keyPrefix: `${prefix}:${name}` };
      const memory = new RateLimiterMemory(opts);
      const limiter = redis ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: memory }) : memory;
      return { name, limit: s.requestsPerPeriod, period: s.periodInSeconds, limiter };
    };
    this.unauthenticated = make('throttle_unauthenticated_api', settings.unauthenticated);
    this.authenticated = make('throttle_authenticated_api', settings.authenticated);
  }

  get enabled(): boolean {
    return this.unauthenticated !== undefined || this.authenticated !== undefined;
  }

  /** Counts one request; the matched throttle when it is over its limit, else undefined (also when the store fails). */
  async hit(caller: { userId: number } | { ip: string }): Promise<{ name: ThrottleName; match: ThrottleMatch } | undefined> {
    const throttle = 'userId' in caller ? this.authenticated : this.unauthenticated;
    if (!throttle) return undefined;
    const epochTime = Math.floor(this.now() / 1000);
    const window = Math.floor(epochTime / throttle.period);
    const discriminator = 'userId' in caller ? `user:${caller.userId}` : caller.ip;
    const match = (count: number): ThrottleMatch => ({ limit: throttle.limit, period: throttle.period, count, epochTime });
    try {
      await throttle.limiter.consume(`${window}:${discriminator}`);
      return undefined;
    } catch (res) {
      if (res instanceof RateLimiterRes) return { name: throttle.name, match: match(res.consumedPoints) };
      return undefined; // the store failed and no insurance answered: let the request through
    }
  }
}

/**
 * The /api/v4 middleware: who is calling (a token that resolves to a user → that user, GitLab's `throttled_identifer`;
 * anything else → the client IP, GitLab's `unauthenticated?`), one count per request, and GitLab's 429 when over.
 */
export function apiRateLimits(limits: ApiRateLimits, authenticator: Pick<TokenAuthenticator, 'authenticate'>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const token = tokenFromRequest(req);
      let caller: { userId: number } | { ip: string } = { ip: req.ip ?? req.socket.remoteAddress ?? 'unknown' };
      if (token) {
        const result = await authenticator.authenticate(token).catch(() => undefined);
        if (result?.ok) caller = { userId: result.actor.id };
      }
      const throttled = await limits.hit(caller);
      if (!throttled) return next();
      res.status(429).set({ 'Content-Type': 'text/plain', ...throttledResponseHeaders(throttled.name, throttled.match) }).send(THROTTLED_BODY);
    })().catch(next);
  };
}
