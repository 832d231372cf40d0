import type { Redis } from 'ioredis';
import { Gauge } from 'prom-client';
import { registry, type Logger } from '@glp/service-kit';

const redisUp = new Gauge({
  name: 'gateway_redis_up',
  help: '1 while the gateway is connected to Redis (its shared token cache), 0 while it serves without it',
  registers: [registry],
});

/**
 * Redis is a cache here, not a dependency: while it is down the gateway keeps serving (token look-ups go to
 * identity, slower). This tracks the connection from ioredis' events, reports it in `gateway_redis_up`, and logs
 * one warning when it goes down and one line when it is back (ioredis reconnects by itself).
 */
export class RedisHealth {
  private up: boolean | undefined;

  constructor(redis: Redis, private readonly logger: Logger) {
    redisUp.set(0);
    redis.on('ready', () => this.set(true));
    redis.on('close', () => this.set(false));
    redis.on('end', () => this.set(false));
    // First connection attempt failed before any 'close' (e.g. nothing listening at start-up).
    redis.on('error', () => {
      if (this.up === undefined) this.set(false);
    });
  }

  private set(up: boolean): void {
    if (up === this.up) return;
    const before = this.up;
    this.up = up;
    redisUp.set(up ? 1 : 0);
    if (!up) this.logger.warn('redis unreachable: serving without the shared token cache (slower) until it returns');
    else if (before === false) this.logger.info('redis reachable again: shared token cache back on');
  }

  /** "ok" or "down"; informational, never a reason to be unready. */
  status(): 'ok' | 'down' {
    return this.up ? 'ok' : 'down';
  }
}
