import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { checkWebhookUrlSyntax, resolveAll, vetWebhookUrl, type Resolver, type WebhookUrlSettings } from '@glp/url-guard';
import { RESPONSE_BODY_SIZE_LIMIT, truncateBytes } from '../domain/response-limits';

export interface OutboundRequest {
  /** The hook's URL with its variables filled in (credentials, if any, go as Basic auth). */
  url: string;
  headers: Record<string, string>;
  body: string;
  verifyTls: boolean;
}

export interface OutboundResult {
  /** The final response's status; null: no answer (then `error`). */
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  error?: string;
}

export interface SenderOptions {
  timeoutMs: number;
  /** Redirect hops followed (each vetted like the first request). */
  maxRedirects?: number;
  /** DNS (tests replace it). */
  resolve?: Resolver;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Bytes of a response read at most (the log keeps 8 KiB); beyond, the connection is dropped. */
const READ_LIMIT = 64 * 1024;

/**
 * Sends webhook requests with the SSRF guard at connect time: before every request (and every redirect hop) the host
 * is resolved, EVERY address is checked against the current settings (GitLab's UrlBlocker), and the connection goes to
 * the vetted address itself (the URL's host kept for the Host header, SNI and certificate check), so a second,
 * rebindable DNS answer is never used. Keep-alive connections are pooled per address (one undici Agent per TLS mode).
 */
export class WebhookSender {
  private readonly agents: { verify: Agent; insecure: Agent };
  private readonly resolve: Resolver;

  constructor(
    private readonly settings: () => WebhookUrlSettings,
    private readonly opts: SenderOptions,
  ) {
    const agent = (rejectUnauthorized: boolean) =>
      new Agent({ keepAliveTimeout: 30_000, connections: 32, connect: { rejectUnauthorized, timeout: opts.timeoutMs } });
    this.agents = { verify: agent(true), insecure: agent(false) };
    this.resolve = opts.resolve ?? resolveAll;
  }

  async send(req: OutboundRequest): Promise<OutboundResult> {
    const signal = AbortSignal.timeout(this.opts.timeoutMs);
    const first = checkWebhookUrlSyntax(req.url);
    if (!first.ok) return failure(first.reason);
    let url = first.url;
    const headers: Record<string, string> = { ...req.headers };
    if (url.username || url.password) {
      // GitLab strips userinfo from the URL and sends it as HTTP Basic auth (`make_request_with_auth`).
      const user = decodeURIComponent(url.username);
      const password = decodeURIComponent(url.password);
      headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      url = new URL(url.toString());
      url.username = '';
      url.password = '';
    }
    let method: 'POST' | 'GET' = 'POST';
    let body: string | undefined = req.body;
    const maxRedirects = this.opts.maxRedirects ?? 3;
    try {
      for (let hop = 0; ; hop++) {
        const vetted = await vetWebhookUrl(url, this.settings(), this.resolve);
        if (!vetted.ok) return failure(vetted.reason);
        const target = new URL(url.toString());
        target.hostname = isIP(vetted.address) === 6 ? `[${vetted.address}]` : vetted.address;
        const res = await request(target, {
          method,
          headers: { ...headers, host: url.host },
          body,
          signal,
          dispatcher: req.verifyTls ? this.agents.verify : this.agents.insecure,
        });
        const location = res.headers.location;
        if (REDIRECTS.has(res.statusCode) && typeof location === 'string' && hop < maxRedirects) {
          await res.body.dump().catch(() => undefined);
          const next = checkWebhookUrlSyntax(new URL(location, url).toString());
          if (!next.ok) return failure(next.reason);
          if (next.url.origin !== url.origin) delete headers.Authorization;
          if (res.statusCode !== 307 && res.statusCode !== 308) {
            method = 'GET';
            body = undefined;
          }
          url = next.url;
          continue;
        }
        return { status: res.statusCode, headers: res.headers, body: await readLimited(res.body) };
      }
    } catch (err) {
      return failure(transportMessage(err, signal));
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.agents.verify.close(), this.agents.insecure.close()]).catch(() => undefined);
  }
}

function failure(error: string): OutboundResult {
  return { status: null, headers: {}, body: '', error };
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > READ_LIMIT) {
      body.destroy();
      break;
    }
  }
  return truncateBytes(Buffer.concat(chunks).toString('utf8'), RESPONSE_BODY_SIZE_LIMIT);
}

/** The transport error as GitLab's log shows it (Ruby's exception messages, roughly). */
function transportMessage(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'execution expired';
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'Connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'Connection reset by peer';
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return 'execution expired';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'Host cannot be resolved or invalid';
    case 'EHOSTUNREACH':
      return 'No route to host';
    default:
      return e.message || e.cause?.message || 'internal error';
  }
}
