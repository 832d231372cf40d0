import type { Actor } from '@glp/service-kit';

/** What one storage's git over HTTP allows at once (GIT_HTTP_CONCURRENCY, GIT_HTTP_CLIENT_CONCURRENCY, GIT_HTTP_MAX_DECOMPRESSED_MB). */
export interface GitHttpLimits {
  /** git upload-pack / receive-pack processes running on this storage. */
  storageConcurrency: number;
  /** Of those, for one client. */
  clientConcurrency: number;
  /** The largest request body once a `Content-Encoding: gzip` body is decoded. */
  maxDecompressedBytes: number;
}

/**
 * What GitLab tells a git client when Gitaly's concurrency limiter refuses the call (Workhorse's `writeUploadPackError`
 * / `writeReceivePackError`); here with the HTTP status of the refusal: 429 when the client itself has too many git
 * processes running, 503 when the storage has.
 */
export const GIT_BUSY = 'GitLab is currently unable to handle this request due to load.';
/** When a refused client may try again (Retry-After, seconds). */
export const GIT_BUSY_RETRY_AFTER_SECONDS = 10;
/** Workhorse's answer to a request body beyond its limit. */
export const GIT_BODY_TOO_LARGE = 'Request Entity Too Large';

/** A decoded request body went beyond GitHttpLimits.maxDecompressedBytes (a gzip bomb): answered 413. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`request body beyond ${maxBytes} bytes once decompressed`);
    this.name = 'BodyTooLargeError';
  }
}

/** Whose share of the storage a request takes: the signed-in user, else the anonymous caller's address. */
export function gitClientKey(actor: Pick<Actor, 'kind' | 'id' | 'username'>, address: string | undefined): string {
  if (actor.kind === 'user') return `user:${actor.id}`;
  if (actor.kind === 'system') return `system:${actor.username}`;
  return `address:${address || 'unknown'}`;
}

export type GitAdmission = { ok: true; release: () => void } | { ok: false; status: 429 | 503 };

/**
 * Counts the git processes running, on the storage and per client, and admits a new one only below both limits (no
 * queue: a refused client retries, as git users do after GitLab's "unable to handle this request due to load").
 * `release` gives the slot back once; a client's count is forgotten at zero.
 */
export class GitProcessSlots {
  private total = 0;
  private readonly perClient = new Map<string, number>();

  constructor(private readonly limits: Pick<GitHttpLimits, 'storageConcurrency' | 'clientConcurrency'>) {}

  admit(client: string): GitAdmission {
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.limits.clientConcurrency) return { ok: false, status: 429 };
    if (this.total >= this.limits.storageConcurrency) return { ok: false, status: 503 };
    this.total += 1;
    this.perClient.set(client, mine + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        const left = (this.perClient.get(client) ?? 1) - 1;
        if (left > 0) this.perClient.set(client, left);
        else this.perClient.delete(client);
      },
    };
  }

  /** Processes running (metrics, tests). */
  get running(): number {
    return this.total;
  }
}
