import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { identityV1 } from '@glp/proto';
import { systemActor, type Actor, type PromiseClient } from '@glp/service-kit';
import type { Logger } from 'pino';

export type AuthResult =
  | { ok: true; actor: Actor; user: identityV1.User }
  | { ok: false; reason: 'not_found' | 'expired' | 'revoked' | 'user_blocked' };

interface Cached {
  status: identityV1.TokenStatus;
  user?: identityV1.User;
  scopes: string[];
}

const GATEWAY_ACTOR = systemActor('gateway');

/**
 * Resolves a token to its user through identity, caching a usable token's identity in
 * Redis for a short TTL (keyed by the token's SHA-256, never the token), so a revoked or
 * expired token stops working within the TTL. Redis being down only costs the cache.
 */
export class TokenAuthenticator {
  constructor(
    private readonly identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'authenticateToken'>,
    private readonly redis: Redis | undefined,
    private readonly ttlSeconds: number,
    private readonly logger: Logger,
  ) {}

  async authenticate(token: string): Promise<AuthResult> {
    const key = `glp:auth:${createHash('sha256').update(token).digest('hex')}`;
    let cached = await this.readCache(key);
    if (!cached) {
      const res = await this.identity.authenticateToken({ token }, { actor: GATEWAY_ACTOR });
      cached = { status: res.status, user: res.user, scopes: res.scopes };
      // Only usable tokens are cached: a token created a moment after a failed attempt works at once.
      if (res.status === identityV1.TokenStatus.TOKEN_STATUS_ACTIVE) await this.writeCache(key, cached);
    }
    return toResult(cached);
  }

  private async readCache(key: string): Promise<Cached | undefined> {
    if (!this.redis || this.ttlSeconds === 0) return undefined;
    try {
      const raw = await this.redis.get(key);
      if (!raw) return undefined;
      const parsed = JSON.parse(raw) as { status: identityV1.TokenStatus; user?: unknown; scopes: string[] };
      return { status: parsed.status, scopes: parsed.scopes, user: parsed.user ? identityV1.User.fromJSON(parsed.user) : undefined };
    } catch (err) {
      this.logger.warn({ err }, 'auth cache read failed');
      return undefined;
    }
  }

  private async writeCache(key: string, value: Cached): Promise<void> {
    if (!this.redis || this.ttlSeconds === 0) return;
    try {
      const json = JSON.stringify({ status: value.status, scopes: value.scopes, user: value.user ? identityV1.User.toJSON(value.user) : undefined });
      await this.redis.set(key, json, 'EX', this.ttlSeconds);
    } catch (err) {
      this.logger.warn({ err }, 'auth cache write failed');
    }
  }
}

function toResult(c: Cached): AuthResult {
  switch (c.status) {
    case identityV1.TokenStatus.TOKEN_STATUS_ACTIVE:
      if (!c.user) return { ok: false, reason: 'not_found' };
      return {
        ok: true,
        user: c.user,
        actor: { kind: 'user', id: c.user.id, username: c.user.username, admin: c.user.isAdmin, scopes: c.scopes },
      };
    case identityV1.TokenStatus.TOKEN_STATUS_EXPIRED:
      return { ok: false, reason: 'expired' };
    case identityV1.TokenStatus.TOKEN_STATUS_REVOKED:
      return { ok: false, reason: 'revoked' };
    case identityV1.TokenStatus.TOKEN_STATUS_USER_BLOCKED:
      return { ok: false, reason: 'user_blocked' };
    default:
      return { ok: false, reason: 'not_found' };
  }
}
