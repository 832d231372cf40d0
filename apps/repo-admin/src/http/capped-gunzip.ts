import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { BodyTooLargeError } from '../domain/git-http-limits';

/**
 * A gzip request body, decoded as it is read (streaming inflate, at the pace of its reader: memory stays at zlib's and the
 * pipes' buffers) and counted: past `maxBytes` the decoded stream fails with BodyTooLargeError and inflating stops; the
 * rest of the request is read and dropped, never inflated, so that the caller's answer reaches the client.
 */
export function cappedGunzip(body: Readable, maxBytes: number): Readable {
  const gunzip = createGunzip();
  let decoded = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      decoded += chunk.length;
      if (decoded > maxBytes) callback(new BodyTooLargeError(maxBytes));
      else callback(null, chunk);
    },
  });
  const stopInflating = () => {
    body.unpipe(gunzip);
    gunzip.destroy();
  };
  body.on('error', (err) => {
    stopInflating();
    counted.destroy(err);
  });
  gunzip.on('error', (err) => counted.destroy(err));
  counted.on('error', (err) => {
    stopInflating();
    if (err instanceof BodyTooLargeError) body.resume();
  });
  return body.pipe(gunzip).pipe(counted);
}
