import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a webhook receiver got. */
export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered. */
  status: number;
  /** performance.timeOrigin + performance.now() when the body was complete (ms since the epoch, sub-ms). */
  at: number;
}

/** Decides the answer to a request: a status, or a status and a body (default 200 `{}`). */
export type Responder = (req: { path: string; headers: IncomingHttpHeaders; body: string; nth: number }) => number | { status: number; body?: string; headers?: Record<string, string> };

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  received: ReceivedHook[];
  /** The answer for requests to `path` (exact, without the query); nth counts that path's requests from 1. */
  respond(path: string, responder: Responder): void;
  /** Requests to `path` so far. */
  at(path: string): ReceivedHook[];
  /** Resolves when `path` got `count` requests (rejects after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  /** Stops listening and drops open connections (a receiver that went down); `start()` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 for tests and benchmarks: records every request (path, headers, raw body, the time it
 * arrived) and answers as told per path, so a test can play a receiver that fails, redirects or goes down.
 */
export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const responders = new Map<string, Responder>();
  const counts = new Map<string, number>();
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  const listen = async (p: number) => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!;
        const nth = (counts.get(path) ?? 0) + 1;
        counts.set(path, nth);
        const body = Buffer.concat(chunks).toString('utf8');
        const answer = responders.get(path)?.({ path, headers: req.headers, body, nth }) ?? 200;
        const { status, body: out = '{}', headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
        received.push({ path, headers: req.headers, body, status, at: performance.timeOrigin + performance.now() });
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(out);
        for (const w of waiters) w();
      });
    });
    server.keepAliveTimeout = 30_000;
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(p, '127.0.0.1', () => resolve());
    });
    return (server.address() as AddressInfo).port;
  };

  const actualPort = await listen(port);
  const stop = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    received,
    respond: (path, responder) => void responders.set(path, responder),
    at,
    waitFor: (path, count, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const got = at(path);
          if (got.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(got);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${path}: ${at(path).length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    stop,
    start: async () => {
      if (!server) await listen(actualPort);
    },
    close: stop,
  };
}
