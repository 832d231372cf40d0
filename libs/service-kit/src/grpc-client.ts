import { randomUUID } from 'node:crypto';
import {
  credentials,
  Metadata,
  type CallOptions,
  type ChannelOptions,
  type Client,
  type ClientUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ActorSigner, type Actor } from './actor';
import { currentContext } from './context';
import { fromGrpcError } from './errors';
import { countRequestGrpcCall } from './request-cost';
import { REQUEST_ID_HEADER } from './grpc-server';

export interface ClientCallOptions {
  /** Defaults to the actor of the current request context. */
  actor?: Actor;
  requestId?: string;
  deadlineMs?: number;
}

/** A unary method of a grpc-js client (what generated clients have, and what `PromiseClient` promisifies). */
export type UnaryFn<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

type Promisified<F> = F extends UnaryFn<infer Req, infer Res> ? (request: Req, opts?: ClientCallOptions) => Promise<Res> : never;

/** The unary methods of a generated client, as promise-returning functions. */
export type PromiseClient<C> = {
  [K in keyof C as K extends keyof Client ? never : C[K] extends (...args: never[]) => ClientUnaryCall ? K : never]: Promisified<C[K]>;
};

export interface GrpcClientExtras<C> {
  raw: C;
  close(): void;
  /**
   * A caller signed for one rpc (by its method name, e.g. `getProjects`) and one item's request (`body`: its serialized
   * bytes), to travel inside a message: the items of a batch that carries several callers (the server's
   * CallContext.callers.verify checks it against the item's own request, so it cannot be moved to another item).
   */
  signActorFor(method: keyof PromiseClient<C> & string, actor: Actor, body: Uint8Array): { payload: string; signature: string };
}

type ClientCtor<C> = (new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: Partial<ChannelOptions>) => C) & {
  /** The service definition generated clients carry (method name → { path, serializers }). */
  service?: Record<string, { path: string; requestSerialize?: (value: never) => Buffer; responseDeserialize?: (bytes: Buffer) => unknown }>;
};

/** The receive window of the clients' HTTP/2 connections and calls (grpc-node.flow_control_window), in bytes. */
export const GRPC_FLOW_CONTROL_WINDOW = 4 * 1024 * 1024;

/**
 * Starts a call with V8's stack traces off. grpc-js takes the caller's stack (`new Error()`) at every unary call, to add
 * it to a failed call's error; fromGrpcError builds a DomainError of its own from the status and drops that error, so
 * the capture is pure cost: 3.6% of the gateway's CPU for a listing (perf: `ErrorUtils::Construct` →
 * `CaptureSimpleStackTrace`). The limit is 0 only while the call starts, synchronously, and restored right after; an
 * error thrown in that moment (a request that cannot be serialized) still carries its message.
 */
function withoutStackTraces<T>(start: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return start();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The request serializer of a call whose message was serialized already (to be signed). */
const passBytes = (bytes: Buffer): Buffer => bytes;

/**
 * Creates a client for a generated service with deadlines, the signed actor and the
 * request id in metadata, round-robin over the addresses DNS gives, and domain
 * errors mapped back from gRPC status codes.
 */
export function createGrpcClient<C extends Client>(
  Ctor: ClientCtor<C>,
  address: string,
  opts: { actorSecret: string; defaultDeadlineMs?: number },
): PromiseClient<C> & GrpcClientExtras<C> {
  const raw = new Ctor(address.includes('://') ? address : `dns:///${address}`, credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    'grpc.keepalive_time_ms': 30000,
    // A restarted peer is reconnected within seconds: grpc-js would otherwise back off up to 120 s between attempts.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 2000,
    // channelz (per-call tracing for grpcdebug) costs ~20% of a call's CPU; we expose Prometheus metrics instead.
    'grpc.enable_channelz': 0,
    // HTTP/2 flow control: how many bytes of answers the peer may send before this process reads them (per call and
    // per connection). On Node 20, at grpc-js's default of 64 KiB, one listing's answer (~60 KB) filled the connection,
    // so a busy event loop that was late to read it held every other answer back: with 32 listings in flight a fifth
    // of the 2-core machine sat idle. Node 24 showed no such stall (bench/README.md, "Answers held back by HTTP/2 flow
    // control").
    'grpc-node.flow_control_window': GRPC_FLOW_CONTROL_WINDOW,
  });
  const defaultDeadline = opts.defaultDeadlineMs ?? 10000;
  const signer = new ActorSigner(opts.actorSecret);
  const wrapper: Record<string, unknown> = {
    raw,
    close: () => raw.close(),
    signActorFor: (method: string, actor: Actor, body: Uint8Array) => {
      const path = Ctor.service?.[method]?.path;
      if (!path) throw new Error(`no rpc ${method}`);
      return signer.sign(actor, path, body);
    },
  };
  const proto = Object.getPrototypeOf(raw) as Record<string, unknown>;
  for (const name of Object.keys(proto)) {
    const fn = proto[name];
    if (typeof fn !== 'function' || name === 'constructor') continue;
    const def = Ctor.service?.[name];
    const path = def?.path;
    if (!path) continue; // not an RPC (e.g. a method of grpc's Client)
    // (Each method's serializer takes its own request type; the wrapper's caller passes that type.)
    const serialize = def.requestSerialize as ((value: unknown) => Buffer) | undefined;
    const deserialize = def.responseDeserialize;
    if (!serialize || !deserialize) continue;
    wrapper[name] = (request: unknown, callOpts: ClientCallOptions = {}) =>
      new Promise((resolve, reject) => {
        const ctx = currentContext();
        const actor = callOpts.actor ?? ctx?.actor;
        if (!actor) {
          reject(new Error(`grpc call ${name} without an actor`));
          return;
        }
        const requestId = callOpts.requestId ?? ctx?.requestId ?? randomUUID();
        const deadline = Date.now() + (callOpts.deadlineMs ?? defaultDeadline);
        countRequestGrpcCall();
        // (A request that cannot be serialized throws here: the promise rejects with it.)
        withoutStackTraces(() => {
          // Serialized once: the signature covers these bytes, and they are what goes on the wire.
          const bytes = serialize(request);
          const signed = signer.sign(actor, path, bytes);
          const md = new Metadata();
          md.set(ACTOR_HEADER, signed.payload);
          md.set(ACTOR_SIGNATURE_HEADER, signed.signature);
          md.set(REQUEST_ID_HEADER, requestId);
          raw.makeUnaryRequest(path, passBytes, deserialize, bytes, md, { deadline }, (err, res) =>
            err ? reject(fromGrpcError(err)) : resolve(res),
          );
        });
      });
  }
  return wrapper as PromiseClient<C> & GrpcClientExtras<C>;
}
