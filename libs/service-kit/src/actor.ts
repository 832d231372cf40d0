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
/** The id of a git grant (gateway → repo-admin): signed with it, and taken once. */
export const GIT_GRANT_ID_HEADER = 'x-glp-grant-id';
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

const NO_BODY = new Uint8Array(0);

/**
 * The MAC covers the gRPC method (its full path, e.g. `/gitlab.projects.v1.ProjectsService/GetProject`), the payload
 * and the request: the message's serialized bytes (or, for a git grant, nothing beyond its method and URL). A captured
 * actor header is then good for one method and one message only: replayed against another method, or with another
 * body (an administrator's UpdateUser turned into another user's promotion), it fails the check.
 */
function mac(secret: string, method: string, payload: string, body: Uint8Array = NO_BODY): string {
  return createHmac('sha256', secret).update(method).update('\n').update(payload).update('\n').update(body).digest('base64url');
}

/** The payload of a signed actor: the actor with its issue time (seconds), JSON in base64url. */
function encodePayload(actor: Actor, now: number): string {
  return Buffer.from(JSON.stringify({ ...actor, iat: Math.floor(now / 1000) })).toString('base64url');
}

/**
 * Encodes an actor with its issue time and signs it (HMAC-SHA256) for one gRPC method and one request: `body` is the
 * request message's serialized bytes (none for a git grant, whose method names its URL).
 */
export function signActor(
  actor: Actor, secret: string, method: string, now = Date.now(), body?: Uint8Array,
): { payload: string; signature: string } {
  const payload = encodePayload(actor, now);
  return { payload, signature: mac(secret, method, payload, body) };
}

/**
 * signActor with a memo: the same actor within the same second reuses its encoded payload (it carries only the
 * second), so the hot path pays one HMAC per call (over the message it sends) but no JSON encoding or base64.
 */
export class ActorSigner {
  private second = 0;
  private memo = new Map<string, string>();

  constructor(private readonly secret: string) {}

  sign(actor: Actor, method: string, body?: Uint8Array, now = Date.now()): { payload: string; signature: string } {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.memo.clear();
    }
    const key = `${actor.kind}\n${actor.id}\n${actor.username}\n${actor.admin}\n${actor.external === true}\n${actor.scopes.join(' ')}`;
    let payload = this.memo.get(key);
    if (!payload) {
      payload = encodePayload(actor, now);
      if (this.memo.size < 10_000) this.memo.set(key, payload);
    }
    return { payload, signature: mac(this.secret, method, payload, body) };
  }
}

/** How old (or how far ahead) a signed actor may be when a service checks it. */
export const ACTOR_MAX_AGE_SECONDS = 300;

function checkSignature(expectedMac: string, signature: string): void {
  const expected = Buffer.from(expectedMac);
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new ActorVerificationError('bad signature');
  }
}

/** The actor of a payload whose signature was checked, if it is not older (or newer) than maxAgeSeconds. */
function decodePayload(payload: string, maxAgeSeconds: number, now: number): Actor {
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
 * Checks the signature (for `method` and the request's serialized `body`) and the age of a signed actor; throws
 * ActorVerificationError otherwise.
 */
export function verifyActor(
  payload: string | undefined,
  signature: string | undefined,
  secret: string,
  method: string,
  maxAgeSeconds = ACTOR_MAX_AGE_SECONDS,
  now = Date.now(),
  body?: Uint8Array,
): Actor {
  if (!payload || !signature) throw new ActorVerificationError('missing actor metadata');
  checkSignature(mac(secret, method, payload, body), signature);
  return decodePayload(payload, maxAgeSeconds, now);
}

/**
 * verifyActor with a memo, the server-side twin of ActorSigner: every call's signature is checked (it covers that
 * call's message), but a payload already decoded and found fresh in this second is not decoded again. The memo is
 * emptied at every new second, so an entry never outlives the age check by more than the second it was checked in.
 */
export class ActorVerifier {
  private second = 0;
  private memo = new Map<string, Actor>();

  constructor(
    private readonly secret: string,
    private readonly maxAgeSeconds = ACTOR_MAX_AGE_SECONDS,
  ) {}

  verify(payload: string | undefined, signature: string | undefined, method: string, body?: Uint8Array, now = Date.now()): Actor {
    if (!payload || !signature) throw new ActorVerificationError('missing actor metadata');
    checkSignature(mac(this.secret, method, payload, body), signature);
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.memo.clear();
    }
    const known = this.memo.get(payload);
    if (known) return { ...known, scopes: [...known.scopes] };
    const actor = decodePayload(payload, this.maxAgeSeconds, now);
    if (this.memo.size < 10_000) this.memo.set(payload, { ...actor, scopes: [...actor.scopes] });
    return actor;
  }
}
