import { randomUUID } from 'node:crypto';
import { status, type handleServerStreamingCall, type handleUnaryCall, type Metadata, type ServerWritableStream, type ServiceDefinition } from '@grpc/grpc-js';
import {
  ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ActorVerificationError, grpcServerHandled, REQUEST_ID_HEADER, runWithContext, toGrpcError, unauthenticated,
  requestBytesOf, verifyActor, type CallContext, type Logger,
} from '@glp/service-kit';

/** The unary methods of a generated server interface (service-kit's `bindService` binds only those). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UnaryMethods<S> = { [K in keyof S as string extends K ? never : S[K] extends handleUnaryCall<any, any> ? K : never]: S[K] };

/** A definition without its streaming methods, for `bindService` (they are bound one by one, e.g. `bindServerStream`). */
export function unaryDefinition(definition: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(Object.entries(definition).filter(([, m]) => !m.requestStream && !m.responseStream)) as ServiceDefinition;
}

/** What a streaming handler gets besides the request: the caller, and a `write` that waits while the client is slow. */
export interface StreamContext<Res> extends CallContext {
  /** Sends one message; resolves when more may be sent (the client keeps up), rejects once the call is cancelled. */
  write(message: Res): Promise<void>;
  /** Called when the client cancels (went away); the handler stops there. */
  onCancel(listener: () => void): void;
}

class CallCancelled extends Error {}

function firstString(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/**
 * service-kit's `bindService` for a server-streaming method: verifies the signed actor (UNAUTHENTICATED otherwise), runs
 * the handler in the request context, lets it write with back-pressure (a message is written only when the previous ones
 * left: HTTP/2 flow control reaches back to the handler), maps a thrown domain error to the call's status (before the
 * first message the client sees only the error), and records the metrics every call records.
 */
export function bindServerStream<Req, Res>(
  path: string, handler: (request: Req, ctx: StreamContext<Res>) => Promise<void>, opts: { actorSecret: string; logger: Logger },
): handleServerStreamingCall<Req, Res> {
  return (call: ServerWritableStream<Req, Res>) => {
    const started = process.hrtime.bigint();
    const requestId = firstString(call.metadata, REQUEST_ID_HEADER) ?? randomUUID();
    const done = (code: string) => grpcServerHandled.observe({ method: path, code }, Number(process.hrtime.bigint() - started) / 1e9);
    const fail = (err: unknown) => {
      const e = toGrpcError(err);
      done(String(e.code));
      call.emit('error', { code: e.code, details: e.details, metadata: e.metadata });
    };
    let actor;
    try {
      // The signature covers the request's bytes (kept by startGrpcServer); without them nothing binds: refused.
      const body = requestBytesOf(call.request);
      if (!body) throw new ActorVerificationError('request bytes unknown');
      actor = verifyActor(firstString(call.metadata, ACTOR_HEADER), firstString(call.metadata, ACTOR_SIGNATURE_HEADER), opts.actorSecret, path, undefined, undefined, body);
    } catch (err) {
      const reason = err instanceof ActorVerificationError ? err.message : 'actor rejected';
      opts.logger.warn({ method: path, request_id: requestId, reason }, 'rejected call with an invalid actor');
      fail(unauthenticated(reason));
      return;
    }
    const cancelListeners: Array<() => void> = [];
    call.on('cancelled', () => cancelListeners.splice(0).forEach((l) => l()));
    const write = (message: Res) =>
      new Promise<void>((resolve, reject) => {
        if (call.cancelled) return reject(new CallCancelled());
        if (call.write(message)) return resolve();
        const settle = (err?: Error) => {
          call.off('drain', onDrain);
          call.off('cancelled', onCancel);
          if (err) reject(err);
          else resolve();
        };
        const onDrain = () => settle();
        const onCancel = () => settle(new CallCancelled());
        call.on('drain', onDrain);
        call.on('cancelled', onCancel);
      });
    const ctx: StreamContext<Res> = { actor, requestId, metadata: call.metadata, write, onCancel: (l) => cancelListeners.push(l) };
    runWithContext({ requestId, actor }, () => {
      handler(call.request, ctx).then(
        () => {
          if (call.cancelled) return done(String(status.CANCELLED));
          done('OK');
          call.end();
        },
        (err: unknown) => {
          if (call.cancelled || err instanceof CallCancelled) return done(String(status.CANCELLED));
          const e = toGrpcError(err);
          if (e.details === 'internal error') opts.logger.error({ err, method: path }, 'handler failed');
          fail(err);
        },
      );
    });
  };
}
