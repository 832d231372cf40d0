import type { ServerResponse } from 'node:http';

/**
 * Writing responses. Every JSON response goes through `sendJson`, so all of them carry exactly
 * `Content-Type: application/json` (GitLab's; older python-gitlab compares it for equality, so no
 * `; charset=utf-8`) and a `Content-Length`. A HEAD request gets the same headers and no body.
 */

type Res = ServerResponse & { req?: { method?: string } };

function write(res: Res, status: number, contentType: string, payload: string, headers?: Readonly<Record<string, string>>): void {
  if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  if (res.req?.method === 'HEAD') res.end();
  else res.end(payload);
}

/** `body` serialized once; `undefined` sends no body and no Content-Type (204, 304). */
export function sendJson(res: Res, status: number, body: unknown, headers?: Readonly<Record<string, string>>): void {
  if (body === undefined) {
    if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.statusCode = status;
    res.end();
    return;
  }
  write(res, status, 'application/json', JSON.stringify(body), headers);
}

/** A plain-text answer, e.g. 400 `Bad Request` for malformed requests (Rack's triple in GitLab's middleware). */
export function sendText(res: Res, status: number, text: string): void {
  write(res, status, 'text/plain', text);
}
