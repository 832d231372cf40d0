import type { ServerResponse } from 'node:http';

/**
 * Writing responses. Every JSON response goes through `sendJson`, so all of them carry exactly
 * `Content-Type: application/json` (GitLab's; older python-gitlab compares it for equality, so no
 * `; charset=utf-8`) and a `Content-Length`. A HEAD request gets the same headers and no body.
 */

type Res = ServerResponse & { req?: { method?: string } };

/** A body already serialized (UTF-8 JSON): sent as it is. */
export class JsonBytes {
  constructor(readonly bytes: Buffer) {}
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** A JSON array of serialized items, as JSON.stringify of the items would write it. */
export function jsonArray(items: readonly Buffer[]): JsonBytes {
  const parts: Buffer[] = [OPEN];
  for (const [i, item] of items.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  }
  parts.push(CLOSE);
  return new JsonBytes(Buffer.concat(parts));
}

function write(res: Res, status: number, contentType: string, payload: string | Buffer, headers?: Readonly<Record<string, string>>): void {
  if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  if (res.req?.method === 'HEAD') res.end();
  else res.end(payload);
}

/** `body` serialized once (a JsonBytes as it is); `undefined` sends no body and no Content-Type (204, 304). */
export function sendJson(res: Res, status: number, body: unknown, headers?: Readonly<Record<string, string>>): void {
  if (body === undefined) {
    if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.statusCode = status;
    res.end();
    return;
  }
  write(res, status, 'application/json', body instanceof JsonBytes ? body.bytes : JSON.stringify(body), headers);
}

/** A plain-text answer, e.g. 400 `Bad Request` for malformed requests (Rack's triple in GitLab's middleware). */
export function sendText(res: Res, status: number, text: string): void {
  write(res, status, 'text/plain', text);
}
