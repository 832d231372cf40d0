import { randomUUID } from 'node:crypto';
import type { handleClientStreamingCall, Metadata, ServerReadableStream } from '@grpc/grpc-js';
import {
  ACTOR_HEADER, ACTOR_MAX_AGE_SECONDS, ACTOR_SIGNATURE_HEADER, ActorVerificationError, grpcServerHandled, REQUEST_ID_HEADER, requestBytesOf,
  runWithContext, toGrpcError, unauthenticated, verifyActor, type CallContext, type Logger,
} from '@glp/service-kit';
import { UsedGrants } from '../domain/used-grants';

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

/** What binds a client stream's caller to it: the stream id its first message carries (undefined: none). */
export interface StreamBinding<Req> {
  streamIdOf(first: Req): string | undefined;
  /** The stream ids taken (each stream once, for as long as its signature could pass). */
  used: UsedGrants;
}

/** A fresh binding for a server's client streams: one memory of taken stream ids for all its methods. */
export const streamBinding = <Req>(streamIdOf: (first: Req) => string | undefined, used = new UsedGrants(ACTOR_MAX_AGE_SECONDS)): StreamBinding<Req> => ({
  streamIdOf, used,
});

/** The first message, then the rest of the same iterator. */
async function* resumed<Req>(first: Req, rest: AsyncIterator<Req>): AsyncGenerator<Req> {
  yield first;
  for (let m = await rest.next(); !m.done; m = await rest.next()) yield m.value;
}

/**
 * service-kit's `bindService` for a client-streaming method (as `bindServerStream` is for server streaming): waits for
 * the first message, verifies the signed actor over that message's bytes (as the client signed them: it names the
 * project, the file and a fresh stream id) and takes its stream id once, so a captured call replayed with another first
 * message, or with the same one and other bytes after it, is refused UNAUTHENTICATED before anything is kept; then runs
 * the handler in the request context with the messages (the first one included) as an async iterable, answers its
 * result or maps the domain error it throws, and records the metrics every call records.
 */
export function bindClientStream<Req, Res>(
  path: string, handler: (messages: AsyncIterable<Req>, ctx: CallContext) => Promise<Res>,
  opts: { actorSecret: string; logger: Logger; binding: StreamBinding<Req> },
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
    const refuse = (reason: string) => {
      opts.logger.warn({ method: path, request_id: requestId, reason }, 'rejected call with an invalid actor');
      fail(unauthenticated(reason));
    };
    const messages = messagesOf(call)[Symbol.asyncIterator]();
    messages.next().then(
      (first) => {
        let actor;
        try {
          if (first.done) throw new ActorVerificationError('no message to bind the actor to');
          const body = requestBytesOf(first.value);
          if (!body) throw new ActorVerificationError('request bytes unknown');
          actor = verifyActor(
            firstString(call.metadata, ACTOR_HEADER), firstString(call.metadata, ACTOR_SIGNATURE_HEADER), opts.actorSecret, path, ACTOR_MAX_AGE_SECONDS, Date.now(), body,
          );
          const streamId = opts.binding.streamIdOf(first.value);
          if (!streamId) throw new ActorVerificationError('no stream id');
          // Taken only once verified (forged ids fill nothing); a second stream with the same id is a replay.
          if (!opts.binding.used.take(`${path}\n${streamId}`)) throw new ActorVerificationError('stream already used');
        } catch (err) {
          refuse(err instanceof ActorVerificationError ? err.message : 'actor rejected');
          return;
        }
        const ctx = { actor, requestId, metadata: call.metadata };
        runWithContext({ requestId, actor }, () => {
          handler(resumed(first.value, messages), ctx).then(
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
      },
      (err: unknown) => {
        if (call.cancelled || err instanceof ClientCancelled) {
          done('CANCELLED');
          return;
        }
        fail(err);
      },
    );
  };
}
