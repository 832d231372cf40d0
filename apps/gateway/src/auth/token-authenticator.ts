import { hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { identityV1 } from '@glp/proto';
import {
  AUTH_CACHE_WRITE_SCRIPT, AUTH_INVALIDATION_CHANNEL, authCacheKey, authGenerationKey, systemActor, type Actor, type PromiseClient,
} from '@glp/service-kit';
import type { Logger } from 'pino';

export type AuthResult =
  | { ok: true; actor: Actor; user: identityV1.User; tokenId: number }
  | { ok: false; reason: 'not_found' | 'expired' | 'revoked' | 'user_blocked' };

interface Cached {
  status: identityV1.TokenStatus;
  user?: identityV1.User;
  scopes: string[];
  tokenId: number;
}

const GATEWAY_ACTOR = systemActor('gateway');
const ACTIVE = identityV1.TokenStatus.TOKEN_STATUS_ACTIVE;

export interface TokenAuthenticatorOptions {
  identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'authenticateToken'>;
  /** Shared cache across gateway replicas; optional, and skipped while it is not connected. */
  redis?: Redis;
  /** A Redis connection for subscribing to identity's invalidations (AUTH_INVALIDATION_CHANNEL); optional. */
  subscriber?: Redis;
  /** How long a usable token's identity lives in Redis (0 = Redis not used). */
  redisTtlSeconds: number;
  /** How long a usable token's identity lives in this process (0 = no in-process cache). */
  localTtlMs: number;
  /** How long an unusable token's answer lives in this process (0 = not cached). */
  negativeTtlMs: number;
  /** Tokens remembered in this process at most. */
  maxEntries?: number;
  logger: Logger;
}

/**
 * Resolves a token to its user, in three tiers keyed by the token's SHA-256 (never the token):
 * 1. this process's LRU (a few seconds; unusable tokens too, more briefly, so a flood of bad tokens does not
 *    reach identity),
 * 2. Redis (usable tokens only, `redisTtlSeconds`), skipped while Redis is not connected,
 * 3. identity's AuthenticateToken; concurrent look-ups of one token share a single call.
 * When a token is revoked or rotated, or its user blocked, deleted or changed, identity deletes its Redis entry and
 * moves its generation (one MULTI) and publishes its digest before answering; every replica drops it from its in-process
 * cache on the message (within milliseconds), and at the latest when the in-process entry expires (`localTtlMs`, 1 s by
 * default) if the message is lost. A look-up reads the token's generation with its entry, and writes identity's answer
 * back only if the generation has not moved meanwhile (one Lua script: check and write at once); when it moved, the
 * answer may predate the change, so identity is asked again and that answer is not cached. A look-up that was in flight
 * when the message came is not cached either. So once a revocation committed and its message arrived, no replica
 * accepts the token, whatever the order the stale answer, the deletion and the message came in. An entry written to
 * Redis before this process last (re)connected is not trusted: identity may have failed to delete it while Redis was
 * away.
 */
export class TokenAuthenticator {
  private readonly local: LRUCache<string, Cached> | undefined;
  private readonly inFlight = new Map<string, Promise<Cached>>();
  /** Digests whose shared entry is being renewed (refreshAhead), one renewal each at a time. */
  private readonly refreshing = new Set<string>();
  /** When Redis last became ready (ms since epoch): older entries are ignored. */
  private redisReadyAt = Date.now();
  /** Digests invalidated recently, and when: a look-up started before that is not cached. */
  private readonly invalidatedAt = new LRUCache<string, number>({ max: 10_000, ttl: 10_000 });

  constructor(private readonly opts: TokenAuthenticatorOptions) {
    const ttl = Math.max(opts.localTtlMs, opts.negativeTtlMs);
    this.local = ttl > 0 ? new LRUCache<string, Cached>({ max: opts.maxEntries ?? 10_000, ttl, ttlAutopurge: false }) : undefined;
    opts.redis?.on('ready', () => {
      this.redisReadyAt = Date.now();
    });
    if (opts.subscriber) {
      opts.subscriber.on('message', (channel: string, message: string) => {
        if (channel === AUTH_INVALIDATION_CHANNEL) this.forget(parseDigests(message));
      });
      opts.subscriber.subscribe(AUTH_INVALIDATION_CHANNEL).catch((err: unknown) => opts.logger.warn({ err }, 'auth invalidation subscribe failed'));
    }
  }

  /** Drops these tokens (hex SHA-256 digests) from this process's cache, and keeps in-flight look-ups from caching them. */
  forget(digests: readonly string[]): void {
    const now = Date.now();
    for (const d of digests) {
      this.local?.delete(d);
      this.invalidatedAt.set(d, now);
    }
  }

  async authenticate(token: string): Promise<AuthResult> {
    const key = hash('sha256', token, 'hex');
    const hit = this.local?.get(key);
    if (hit) return toResult(hit);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.resolve(token, key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return toResult(await pending);
  }

  private async resolve(token: string, key: string): Promise<Cached> {
    const started = Date.now();
    const read = await this.readRedis(key);
    let cached = read.cached;
    if (cached && read.writtenAt !== undefined && read.generation !== undefined) this.refreshAhead(token, key, read.writtenAt, read.generation);
    if (!cached) {
      cached = await this.ask(token);
      if ((this.invalidatedAt.get(key) ?? 0) >= started) return cached; // invalidated meanwhile: answer, do not keep
      // Only usable tokens are shared: an unusable one is remembered briefly, here only.
      if (cached.status === ACTIVE && read.generation !== undefined && !(await this.writeRedis(key, cached, read.generation))) {
        // The token changed while identity was answering: that answer may be from before the change. Ask again, keep nothing.
        return this.ask(token);
      }
      if ((this.invalidatedAt.get(key) ?? 0) >= started) return cached; // the message came while writing
    }
    const ttl = cached.status === ACTIVE ? this.opts.localTtlMs : this.opts.negativeTtlMs;
    if (ttl > 0) this.local?.set(key, cached, { ttl });
    return cached;
  }

  /**
   * Renews a shared entry in its last third, in the background, while identity answers: the entry then never lapses
   * under steady use, so an identity outage shorter than that third does not turn signed-in requests away. The renewal
   * goes through the same generation check as any write: a token changed meanwhile is not written back.
   */
  private refreshAhead(token: string, key: string, writtenAt: number, generation: string): void {
    const ttlMs = this.opts.redisTtlSeconds * 1000;
    if (Date.now() - writtenAt < (ttlMs * 2) / 3 || this.refreshing.has(key)) return;
    this.refreshing.add(key);
    const started = Date.now();
    this.ask(token)
      .then(async (fresh) => {
        if (fresh.status !== ACTIVE || (this.invalidatedAt.get(key) ?? 0) >= started) return;
        await this.writeRedis(key, fresh, generation);
      })
      .catch((err: unknown) => this.opts.logger.debug({ err }, 'auth cache renewal failed'))
      .finally(() => this.refreshing.delete(key));
  }

  private async ask(token: string): Promise<Cached> {
    const res = await this.opts.identity.authenticateToken({ token }, { actor: GATEWAY_ACTOR });
    return { status: res.status, user: res.user, scopes: res.scopes, tokenId: res.tokenId };
  }

  private redisUsable(): Redis | undefined {
    const redis = this.opts.redis;
    return redis && this.opts.redisTtlSeconds > 0 && redis.status === 'ready' ? redis : undefined;
  }

  /**
   * The token's entry (if usable) and its generation ('' for none), in one round trip; `generation` undefined when Redis
   * was not read (then nothing is written back either).
   */
  private async readRedis(digest: string): Promise<{ cached?: Cached; generation?: string; writtenAt?: number }> {
    const redis = this.redisUsable();
    if (!redis) return {};
    try {
      const [raw, generation] = await redis.mget(authCacheKey(digest), authGenerationKey(digest));
      if (!raw) return { generation: generation ?? '' };
      const parsed = JSON.parse(raw) as { status: identityV1.TokenStatus; user?: unknown; scopes: string[]; tokenId?: number; at?: number };
      if ((parsed.at ?? 0) < this.redisReadyAt) return { generation: generation ?? '' };
      return {
        generation: generation ?? '',
        writtenAt: parsed.at,
        cached: {
          status: parsed.status, scopes: parsed.scopes, tokenId: parsed.tokenId ?? 0, user: parsed.user ? identityV1.User.fromJSON(parsed.user) : undefined,
        },
      };
    } catch (err) {
      this.opts.logger.debug({ err }, 'auth cache read failed');
      return {};
    }
  }

  /** Writes the entry if the token's generation is still `generation`; false when it moved (true when Redis failed: nothing to say). */
  private async writeRedis(digest: string, value: Cached, generation: string): Promise<boolean> {
    const redis = this.redisUsable();
    if (!redis) return true;
    try {
      const json = JSON.stringify({
        status: value.status, scopes: value.scopes, tokenId: value.tokenId, at: Date.now(), user: value.user ? identityV1.User.toJSON(value.user) : undefined,
      });
      const written = await redis.eval(AUTH_CACHE_WRITE_SCRIPT, 2, authCacheKey(digest), authGenerationKey(digest), json, this.opts.redisTtlSeconds, generation);
      return written === 1;
    } catch (err) {
      this.opts.logger.debug({ err }, 'auth cache write failed');
      return true;
    }
  }
}

/** The digests of an invalidation message (a JSON array of hex strings); anything else is ignored. */
function parseDigests(message: string): string[] {
  try {
    const parsed: unknown = JSON.parse(message);
    return Array.isArray(parsed) ? parsed.filter((d): d is string => typeof d === 'string' && /^[0-9a-f]{64}$/.test(d)) : [];
  } catch {
    return [];
  }
}

function toResult(c: Cached): AuthResult {
  switch (c.status) {
    case ACTIVE:
      if (!c.user) return { ok: false, reason: 'not_found' };
      return {
        ok: true,
        user: c.user,
        tokenId: c.tokenId,
        actor: { kind: 'user', id: c.user.id, username: c.user.username, admin: c.user.isAdmin, scopes: c.scopes, external: c.user.external },
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
