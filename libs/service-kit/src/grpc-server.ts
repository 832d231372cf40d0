import { randomUUID } from 'node:crypto';
import {
  Server,
  ServerCredentials,
  type handleUnaryCall,
  type Metadata,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ActorVerifier, type Actor, ActorVerificationError } from './actor';
import { runWithContext } from './context';
import { isUnexpectedError, toErrorPayload, toGrpcError, unauthenticated, type ErrorPayload } from './errors';
import { grpcServerHandled } from './metrics';
import { keepingRequestBytes, requestBytesOf } from './request-bytes';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a handler knows about its call. */
export interface CallContext {
  actor: Actor;
  requestId: string;
  metadata: Metadata;
  /** The callers of a batch's items (GetProjects); set by bindService (a handler called directly, as in a test, may go without). */
  callers?: ItemCallers;
}

/**
 * The callers that travel inside a request, one per item of a batch that carries several (GetProjects): each is signed
 * for the call's method as the call's own actor is.
 */
export interface ItemCallers {
  /**
   * The verified caller of an item, whose signature covers the item's own request (`body`: its serialized bytes, as the
   * client's `signActorFor` signed them); UNAUTHENTICATED (DomainError) for a missing, forged or expired signature, or
   * one lifted from another item.
   */
  verify(signed: { payload: string; signature: string } | undefined, requestId: string | undefined, body: Uint8Array): Actor;
  /**
   * Runs fn in a request context of its own (the item's caller and request id), so its calls and logs are that
   * caller's; a failure comes back as the ErrorPayload the call's status would have carried (an internal one is logged
   * as a handler's is), so one item's failure does not fail the batch.
   */
  run<T>(actor: Actor, requestId: string, fn: () => Promise<T>): Promise<ItemOutcome<T>>;
}

export type ItemOutcome<T> = { ok: true; value: T } | { ok: false; error: ErrorPayload };

/** A service written as async functions: (request, ctx) => response. */
export type AsyncService<S> = {
  // (`as`: drop the index signature generated servers inherit from UntypedServiceImplementation)
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res> ? (request: Req, ctx: CallContext) => Promise<Res> : never;
};

function firstString(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Adapts async handlers to grpc-js: verifies the signed actor over the method and the request's bytes (a call without
 * a valid signature for this very message is rejected with UNAUTHENTICATED; served by startGrpcServer, which keeps
 * those bytes), runs the handler inside the request
 * context (so logs carry the request id), maps domain errors, and records metrics.
 */
export function bindService<S>(
  definition: ServiceDefinition,
  handlers: AsyncService<S>,
  opts: { actorSecret: string; logger: Logger },
): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {};
  const verifier = new ActorVerifier(opts.actorSecret);
  for (const [name, method] of Object.entries(definition)) {
    const handler = (handlers as Record<string, (req: unknown, ctx: CallContext) => Promise<unknown>>)[name];
    if (!handler) throw new Error(`no handler for ${method.path}`);
    /** The verified actor of a call (its metadata) or of a batch item; UNAUTHENTICATED (DomainError) otherwise, logged. */
    const verifyActor = (
      payload: string | undefined, signature: string | undefined, body: Uint8Array | undefined, requestId: string | undefined, what: string,
    ): Actor => {
      try {
        // No bytes: the definition was served without keepingRequestBytes (startGrpcServer adds it), so nothing binds.
        if (!body) throw new ActorVerificationError('request bytes unknown');
        return verifier.verify(payload, signature, method.path, body);
      } catch (err) {
        const reason = err instanceof ActorVerificationError ? err.message : 'actor rejected';
        opts.logger.warn({ method: method.path, request_id: requestId, reason }, `rejected ${what} with an invalid actor`);
        throw unauthenticated(reason);
      }
    };
    // One per method (not per call): the hot path allocates nothing for it.
    const callers: ItemCallers = {
      verify: (signed, itemRequestId, body) => verifyActor(signed?.payload, signed?.signature, body, itemRequestId, 'an item'),
      run: <T>(itemActor: Actor, itemRequestId: string, fn: () => Promise<T>) =>
        runWithContext({ requestId: itemRequestId, actor: itemActor, operation: method.path }, fn).then(
          (value): ItemOutcome<T> => ({ ok: true, value }),
          (err: unknown): ItemOutcome<T> => {
            if (isUnexpectedError(err)) opts.logger.error({ err, method: method.path, request_id: itemRequestId }, 'item failed');
            return { ok: false, error: toErrorPayload(err) };
          },
        ),
    };
    const unary: handleUnaryCall<unknown, unknown> = (call: ServerUnaryCall<unknown, unknown>, callback) => {
      const started = process.hrtime.bigint();
      const requestId = firstString(call.metadata, REQUEST_ID_HEADER) ?? randomUUID();
      const done = (code: string) =>
        grpcServerHandled.observe({ method: method.path, code }, Number(process.hrtime.bigint() - started) / 1e9);
      let actor: Actor;
      try {
        actor = verifyActor(
          firstString(call.metadata, ACTOR_HEADER), firstString(call.metadata, ACTOR_SIGNATURE_HEADER), requestBytesOf(call.request), requestId, 'call',
        );
      } catch (err) {
        const e = toGrpcError(err);
        done('UNAUTHENTICATED');
        callback({ code: e.code, details: e.details, metadata: e.metadata });
        return;
      }
      runWithContext({ requestId, actor, operation: method.path }, () => {
        handler(call.request, { actor, requestId, metadata: call.metadata, callers }).then(
          (res) => {
            done('OK');
            callback(null, res);
          },
          (err: unknown) => {
            const e = toGrpcError(err);
            if (isUnexpectedError(err)) opts.logger.error({ err, method: method.path }, 'handler failed');
            done(String(e.code));
            callback({ code: e.code, details: e.details, metadata: e.metadata });
          },
        );
      });
    };
    impl[name] = unary;
  }
  return impl;
}

export interface RunningGrpcServer {
  server: Server;
  port: number;
  health: HealthImplementation;
  /** Marks the server NOT_SERVING, lets in-flight calls finish (up to timeoutMs), then stops. */
  stop(timeoutMs?: number): Promise<void>;
}

export async function startGrpcServer(opts: {
  host?: string;
  port: number;
  services: Array<{ definition: ServiceDefinition; implementation: UntypedServiceImplementation; name: string }>;
  logger: Logger;
  /** GRPC_MAX_CONNECTION_AGE_MS (commonServiceEnv; read from the environment when not given). 0 = never. */
  maxConnectionAgeMs?: number;
}): Promise<RunningGrpcServer> {
  const age = opts.maxConnectionAgeMs ?? Number(process.env.GRPC_MAX_CONNECTION_AGE_MS ?? 300000);
  const server = new Server({
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    // channelz (per-call tracing for grpcdebug) costs ~20% of a call's CPU; we expose Prometheus metrics instead.
    'grpc.enable_channelz': 0,
    // Connections are recycled (calls in flight finish) so clients re-resolve DNS and reach replicas added since.
    ...(Number.isFinite(age) && age > 0 ? { 'grpc.max_connection_age_ms': age } : {}),
  });
  const statuses: Record<string, 'SERVING'> = { '': 'SERVING' };
  for (const s of opts.services) statuses[s.name] = 'SERVING';
  const health = new HealthImplementation(statuses);
  health.addToServer(server);
  // Each request's bytes are kept for the actor check (bindService): the signature covers the message as sent.
  for (const s of opts.services) server.addService(keepingRequestBytes(s.definition), s.implementation);
  const host = opts.host ?? '0.0.0.0';
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${opts.port}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  opts.logger.info({ port }, 'gRPC server listening');
  return {
    server,
    port,
    health,
    stop: (timeoutMs = 5000) =>
      new Promise<void>((resolve) => {
        for (const name of Object.keys(statuses)) health.setStatus(name, 'NOT_SERVING');
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
