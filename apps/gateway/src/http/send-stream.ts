import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';

type Res = ServerResponse & { req?: { method?: string } };

/**
 * A streamed answer (a repository snapshot, a download): status and headers first, then the body piped with
 * back-pressure (the source is read only as fast as the client takes it), chunked unless `headers` carry a
 * Content-Length (a stored file's size). HEAD gets the
 * headers and the source is dropped. A source failing midway, or a client going away, ends the connection without
 * completing the body: the client sees a truncated transfer, never a complete-looking one.
 */
export async function sendStream(res: Res, status: number, body: Readable, headers?: Readonly<Record<string, string>>): Promise<void> {
  res.removeHeader('Content-Length'); // chunked, unless the route knows the length (a stored file: `headers`)
  if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  if (res.req?.method === 'HEAD') {
    body.destroy();
    res.end();
    return;
  }
  await pipeline(body, res).catch(() => {
    res.destroy();
  });
}
