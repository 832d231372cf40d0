import { randomUUID } from 'node:crypto';
import type { handleClientStreamingCall, Metadata, ServerReadableStream } from '@grpc/grpc-js';
import {
  ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ActorVerificationError, grpcServerHandled, REQUEST_ID_HEADER, runWithContext, toGrpcError, unauthenticated,
  verifyActor, type CallContext, type Logger,
} from '@glp/service-kit';

/** The client went away before it finished sending: whatever it sent is dropped. */
export class ClientCancelled extends Error {
  constructor() {
    super('the client cancelled the call');
    this.name = 'ClientCancelled';
  }
}

function firstString(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/**
 * The messages of a client stream, read only as fast as the handler takes them (HTTP/2 flow control reaches back to the
 * sender). A call the client cancelled ends with ClientCancelled, never like a complete stream.
 */
async function* messagesOf<Req>(call: ServerReadableStream<Req, unknown>): AsyncGenerator<Req> {
  for await (const message of call as AsyncIterable<Req>) {
    if (call.cancelled) throw new ClientCancelled();
    yield message;
  }
  if (call.cancelled) throw new ClientCancelled();
}

/**
 * service-kit's `bindService` for a client-streaming method (as `bindServerStream` is for server streaming): verifies
 * the signed actor (UNAUTHENTICATED otherwise), runs the handler in the request context with the messages as an async
 * iterable, answers its result or maps the domain error it throws, and records the metrics every call records.
 */
export function bindClientStream<Req, Res>(
  path: string, handler: (messages: AsyncIterable<Req>, ctx: CallContext) => Promise<Res>, opts: { actorSecret: string; logger: Logger },
): handleClientStreamingCall<Req, Res> {
  return (call: ServerReadableStream<Req, Res>, callback) => {
    const started = process.hrtime.bigint();
    const requestId = firstString(call.metadata, REQUEST_ID_HEADER) ?? randomUUID();
    const done = (code: string) => grpcServerHandled.observe({ method: path, code }, Number(process.hrtime.bigint() - started) / 1e9);
    const fail = (err: unknown) => {
      const e = toGrpcError(err);
      done(String(e.code));
      callback({ code: e.code, details: e.details, metadata: e.metadata });
    };
    let actor;
    try {
      actor = verifyActor(firstString(call.metadata, ACTOR_HEADER), firstString(call.metadata, ACTOR_SIGNATURE_HEADER), opts.actorSecret, path);
    } catch (err) {
      const reason = err instanceof ActorVerificationError ? err.message : 'actor rejected';
      opts.logger.warn({ method: path, request_id: requestId, reason }, 'rejected call with an invalid actor');
      fail(unauthenticated(reason));
      return;
    }
    runWithContext({ requestId, actor }, () => {
      handler(messagesOf(call), { actor, requestId, metadata: call.metadata }).then(
        (res) => {
          done('OK');
          callback(null, res);
        },
        (err: unknown) => {
          if (call.cancelled || err instanceof ClientCancelled) {
            done('CANCELLED');
            return;
          }
          const e = toGrpcError(err);
          if (e.details === 'internal error') opts.logger.error({ err, method: path }, 'handler failed');
          fail(err);
        },
      );
    });
  };
}
