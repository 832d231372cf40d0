import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The caller of a request, as decided by the gateway. `id` 0 with kind
 * "anonymous" is a caller without a token; kind "system" is a service acting on its own.
 */
export interface Actor {
  kind: 'user' | 'anonymous' | 'system';
  id: number;
  username: string;
  admin: boolean;
  scopes: string[];
  /** An external user (GitLab's `external`): sees only public projects and those they are a member of. */
  external?: boolean;
}

export const ANONYMOUS: Actor = Object.freeze({ kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] }) as Actor;

export function systemActor(name: string): Actor {
  return { kind: 'system', id: 0, username: name, admin: true, scopes: ['api'] };
}

export const ACTOR_HEADER = 'x-glp-actor';
export const ACTOR_SIGNATURE_HEADER = 'x-glp-actor-sig';
/**
 * The caller's address as the gateway saw it (after TRUST_PROXY), on the requests it proxies to a service's HTTP
 * listener: what tells anonymous callers apart there. The gateway sets it (never a client).
 */
export const CLIENT_ADDRESS_HEADER = 'x-glp-client-address';

export class ActorVerificationError extends Error {
  constructor(reason: string) {
    super(`actor rejected: ${reason}`);
    this.name = 'ActorVerificationError';
  }
}

/**
 * The MAC covers the gRPC method (its full path, e.g. `/gitlab.projects.v1.ProjectsService/GetProject`) as well as
 * the payload, so a captured actor header cannot be replayed against another method.
 */
function mac(secret: string, method: string, payload: string): string {
  return createHmac('sha256', secret).update(method).update('\n').update(payload).digest('base64url');
}

/** Encodes an actor with its issue time and signs it (HMAC-SHA256) for one gRPC method. */
export function signActor(actor: Actor, secret: string, method: string, now = Date.now()): { payload: string; signature: string } {
  const payload = Buffer.from(JSON.stringify({ ...actor, iat: Math.floor(now / 1000) })).toString('base64url');
  return { payload, signature: mac(secret, method, payload) };
}

/**
 * signActor with a memo: the same actor calling the same method within the same second reuses the signature
 * (the payload carries only the second), so the hot path does not pay an HMAC, a JSON encoding and a base64 per call.
 */
export class ActorSigner {
  private second = 0;
  private memo = new Map<string, { payload: string; signature: string }>();

  constructor(private readonly secret: string) {}

  sign(actor: Actor, method: string, now = Date.now()): { payload: string; signature: string } {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.memo.clear();
    }
    const key = `${method}\n${actor.kind}\n${actor.id}\n${actor.username}\n${actor.admin}\n${actor.external === true}\n${actor.scopes.join(' ')}`;
    let signed = this.memo.get(key);
    if (!signed) {
      signed = signActor(actor, this.secret, method, now);
      if (this.memo.size < 10_000) this.memo.set(key, signed);
    }
    return signed;
  }
}

/** Checks the signature (for `method`) and the age of a signed actor; throws ActorVerificationError otherwise. */
export function verifyActor(
  payload: string | undefined,
  signature: string | undefined,
  secret: string,
  method: string,
  maxAgeSeconds = 300,
  now = Date.now(),
): Actor {
  if (!payload || !signature) throw new ActorVerificationError('missing actor metadata');
  const expected = Buffer.from(mac(secret, method, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new ActorVerificationError('bad signature');
  }
  let decoded: Actor & { iat?: number };
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new ActorVerificationError('malformed payload');
  }
  const age = Math.floor(now / 1000) - (decoded.iat ?? 0);
  if (age > maxAgeSeconds || age < -maxAgeSeconds) throw new ActorVerificationError('expired');
  return {
    kind: decoded.kind,
    id: decoded.id,
    username: decoded.username,
    admin: decoded.admin === true,
    scopes: Array.isArray(decoded.scopes) ? decoded.scopes : [],
    external: decoded.external === true,
  };
}

/**
 * verifyActor with a memo, the server-side twin of ActorSigner: a caller signs one actor per method and second, so
 * the calls of that second carry the same payload and signature. Only a verified triple (method, payload, signature)
 * is remembered, and the memo is emptied at every new second, so an entry never outlives the age check by more than
 * the second it was verified in; a wrong signature is never remembered and fails the HMAC every time.
 */
export class ActorVerifier {
  private second = 0;
  private memo = new Map<string, Actor>();

  constructor(
    private readonly secret: string,
    private readonly maxAgeSeconds = 300,
  ) {}

  verify(payload: string | undefined, signature: string | undefined, method: string, now = Date.now()): Actor {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.memo.clear();
    }
    const key = payload && signature ? `${method}\n${signature}\n${payload}` : undefined;
    const known = key ? this.memo.get(key) : undefined;
    if (known) return { ...known, scopes: [...known.scopes] };
    const actor = verifyActor(payload, signature, this.secret, method, this.maxAgeSeconds, now);
    if (key && this.memo.size < 10_000) this.memo.set(key, { ...actor, scopes: [...actor.scopes] });
    return actor;
  }
}
