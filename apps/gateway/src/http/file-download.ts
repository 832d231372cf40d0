import { Readable } from 'node:stream';
import type { RouteResult } from './route';

/**
 * The first `bytes` of a stream (fewer when it is shorter), and a stream of all of it: what Workhorse reads before it
 * decides a served file's headers (`headers.MaxDetectSize`), without holding more than that.
 */
export async function peekHead(body: Readable, bytes: number): Promise<{ head: Buffer; body: Readable }> {
  const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const seen: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < bytes) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    size += next.value.length;
  }
  const head = Buffer.concat(seen, size);
  async function* all(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head;
      if (done) return;
      for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
    } finally {
      body.destroy();
    }
  }
  return { head: head.subarray(0, Math.min(size, bytes)), body: Readable.from(all(), { objectMode: false }) };
}

/** A plain-text answer as a route result (Workhorse's own errors are Go's `http.Error`: text, a trailing newline). */
export function textResult(status: number, text: string, contentType = 'text/plain; charset=utf-8'): RouteResult {
  const payload = Buffer.from(text);
  return {
    status,
    stream: Readable.from([payload]),
    headers: { 'Content-Type': contentType, 'Content-Length': String(payload.length), 'X-Content-Type-Options': 'nosniff' },
  };
}
