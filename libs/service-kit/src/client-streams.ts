import { once } from 'node:events';
import type { ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import { fromGrpcError } from './errors';

/**
 * A client-streaming call: the first message, then one message per chunk of `body`, written only as fast as the server
 * takes them (`drain`). Stops writing as soon as the server answered (e.g. refused the caller, or a file grew beyond its
 * limit); a failing `body` (the HTTP client went away, a broken multipart body, a backup file that cannot be read)
 * cancels the call, so the server drops what it received. Rejects with the server's DomainError.
 */
export function sendStreamed<Req, Res>(
  start: (callback: (err: ServiceError | null, res?: Res) => void) => ClientWritableStream<Req>,
  first: Req, body: AsyncIterable<Buffer>, chunk: (bytes: Buffer) => Req,
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    let answered = false;
    let wake: () => void = () => undefined;
    const call = start((err, res) => {
      answered = true;
      wake();
      if (err) reject(fromGrpcError(err));
      else resolve(res!);
    });
    const write = async (message: Req) => {
      if (answered) return;
      if (call.write(message)) return;
      await new Promise<void>((done) => {
        wake = done;
        once(call, 'drain').then(() => done(), () => done());
      });
    };
    (async () => {
      await write(first);
      for await (const bytes of body) {
        if (answered) break;
        await write(chunk(bytes));
      }
      if (!answered) call.end();
    })().catch((err: unknown) => {
      if (!answered) {
        answered = true;
        call.cancel();
        reject(err);
      }
    });
  });
}

