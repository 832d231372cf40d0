import type { ServerOptions } from 'node:http';

/**
 * Timeouts of the gateway's HTTP server, so that slow or idle clients cannot hold connections (slowloris):
 *  - headers: the request line and headers must arrive within `headersMs`, else Node answers 408 and closes;
 *  - request: headers and body within `requestMs` (0 = no limit), long enough for git pushes and big uploads;
 *  - keep-alive: an idle persistent connection is closed after `keepAliveMs`.
 * Node checks the first two on a timer (`connectionsCheckingInterval`, 30 s by default); it runs every second here (or
 * a quarter of the headers timeout), so a connection is cut close to its deadline.
 */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

export function serverTimeoutOptions(t: HttpTimeouts): ServerOptions {
  // Node refuses a headers timeout above a non-zero request timeout.
  if (t.requestMs > 0 && t.headersMs > t.requestMs) {
    throw new Error(`HTTP_HEADERS_TIMEOUT_MS (${t.headersMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${t.requestMs})`);
  }
  return {
    headersTimeout: t.headersMs,
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(t.headersMs / 4))),
  };
}
