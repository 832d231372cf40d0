import { randomUUID } from 'node:crypto';
import { Metadata, status, type ClientDuplexStream, type StatusObject } from '@grpc/grpc-js';
import type { projectsV1 } from '@glp/proto';
import {
  ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, CoalescingWriter, countRequestGrpcCall, currentContext, DomainError, fromErrorPayload, outsideContext,
  REQUEST_ID_HEADER, registry, systemActor, type Actor, type ClientCallOptions,
} from '@glp/service-kit';
import { Counter } from 'prom-client';
import type { ProjectListingBytes, StreamedListing } from './project-bytes-client';

/** What the streams need of the projects client (the gateway's ProjectBytesClient, promisified, with its raw client). */
export interface ProjectListingClient {
  listProjects(request: projectsV1.ListProjectsRequest, opts?: ClientCallOptions): Promise<ProjectListingBytes>;
  signActorFor(method: 'listProjectsStream', actor: Actor): { payload: string; signature: string };
  raw: {
    listProjectsStream(metadata: Metadata): ClientDuplexStream<projectsV1.ListProjectsStreamRequest, StreamedListing[]>;
  };
}

export interface ProjectListingStreamsOptions {
  /** Streams kept open, the listings sent round-robin over them; 0: every listing is a ListProjects call of its own. */
  streams: number;
  /** A stream is half-closed this long after it opened (a new one takes its place), so listings reach replicas added since. */
  maxAgeMs: number;
  /** A listing's deadline, as a unary call's (GRPC_DEADLINE_MS). */
  deadlineMs: number;
  /** After an UNIMPLEMENTED answer (projects older than the gateway, during a rolling upgrade), how long listings go as calls. */
  fallbackMs?: number;
}

interface Pending {
  request: projectsV1.ListProjectsRequest;
  actor: Actor;
  requestId: string;
  deadline: number;
  resolve(res: ProjectListingBytes): void;
  reject(err: unknown): void;
}

interface Stream {
  call: ClientDuplexStream<projectsV1.ListProjectsStreamRequest, StreamedListing[]>;
  /** The listings, written as they come: those that come while a message is being written go together in the next. */
  writer: CoalescingWriter<projectsV1.ListProjectsStreamItem, projectsV1.ListProjectsStreamRequest>;
  pending: Map<number, Pending>;
  openedAt: number;
  /** No more listings go to it; it ends once those queued are written (`endSent`). */
  halfClosed: boolean;
  endSent: boolean;
}

const GATEWAY = systemActor('gateway');

const opened = new Counter({
  name: 'glp_gateway_project_listing_streams_opened_total',
  help: 'ListProjectsStream calls the gateway opened to projects',
  registers: [registry],
});
const resent = new Counter({
  name: 'glp_gateway_project_listings_resent_total',
  help: 'Listings left unanswered by a stream that ended (projects shutting down, a lost connection) and sent again as ListProjects calls',
  registers: [registry],
});

const deadlineExceeded = () => new DomainError('unavailable', 'deadline exceeded');

/**
 * The gateway's project listings (GET /projects, GET /users/:id/projects, ...) sent to projects as messages of a few
 * long-lived ListProjectsStream calls (projects.proto) instead of one unary ListProjects call each: each listing is
 * written as soon as its request arrives (those that arrive while a message is being written go together in the
 * next: CoalescingWriter), with its own caller (signed for ListProjectsStream; projects verifies each),
 * request id and deadline, and answered as soon as projects is done with it. A unary call opens an HTTP/2 stream per
 * listing, and that stream is most of what a call costs both sides: outside the stack 0.222 → 0.110 ms of the HTTP
 * server's CPU per request and 0.079 → 0.035 ms of the gRPC server's (bench/README.md, "Listings over one stream").
 *
 * Each listing counts as one gRPC call of its request (request-cost accounting). A listing still unanswered when its
 * deadline passes fails as a call past its deadline does. A stream that ends with listings unanswered (projects
 * shutting down ends its streams once their answers are sent; a lost connection) has them sent again, each as a
 * ListProjects call (reads: safe to repeat). UNIMPLEMENTED (a projects older than the gateway) turns the streams off
 * for `fallbackMs`.
 */
export class ProjectListingStreams {
  private readonly streams: (Stream | undefined)[] = [];
  /** Every stream not yet ended, half-closed ones included (their listings are still answered). */
  private readonly live = new Set<Stream>();
  private turn = 0;
  private nextId = 1;
  private fallbackUntil = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: ProjectListingClient,
    private readonly opts: ProjectListingStreamsOptions,
  ) {}

  /** ListProjects for the current request's caller. */
  list(request: projectsV1.ListProjectsRequest): Promise<ProjectListingBytes> {
    if (this.opts.streams <= 0 || Date.now() < this.fallbackUntil) return this.client.listProjects(request);
    const ctx = currentContext();
    if (!ctx?.actor) return Promise.reject(new Error('project listing without an actor'));
    countRequestGrpcCall();
    const { actor, requestId } = ctx;
    return new Promise((resolve, reject) => {
      // Outside the request's context: the stream it may open outlives the request and serves others.
      outsideContext(() => this.send({ request, actor, requestId, deadline: Date.now() + this.opts.deadlineMs, resolve, reject }));
    });
  }

  /** Half-closes every stream (projects answers what it was sent, then ends them); later listings open new ones. */
  close(): void {
    for (const stream of this.live) this.halfClose(stream);
    this.streams.length = 0;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private send(p: Pending): void {
    const stream = this.pick();
    const id = this.nextId++;
    stream.pending.set(id, p);
    stream.writer.push({
      id, request: p.request, actor: this.client.signActorFor('listProjectsStream', p.actor), requestId: p.requestId,
      deadlineUnixMs: p.deadline,
    });
  }

  /** The next stream round-robin, opened (or replaced once past its age) as needed. */
  private pick(): Stream {
    const slot = this.turn++ % this.opts.streams;
    let stream = this.streams[slot];
    if (stream && Date.now() - stream.openedAt > this.opts.maxAgeMs) {
      this.halfClose(stream);
      stream = undefined;
    }
    if (!stream) {
      stream = this.open();
      this.streams[slot] = stream;
    }
    return stream;
  }

  private open(): Stream {
    const md = new Metadata();
    const signed = this.client.signActorFor('listProjectsStream', GATEWAY);
    md.set(ACTOR_HEADER, signed.payload);
    md.set(ACTOR_SIGNATURE_HEADER, signed.signature);
    md.set(REQUEST_ID_HEADER, randomUUID());
    const call = this.client.raw.listProjectsStream(md);
    const stream: Stream = {
      call,
      // (a half-closed stream ends once the listings queued for it are written)
      writer: new CoalescingWriter((message, done) => call.write(message, done), (listings) => ({ listings }), () => this.endIfHalfClosed(stream)),
      pending: new Map(),
      openedAt: Date.now(),
      halfClosed: false,
      endSent: false,
    };
    opened.inc();
    this.live.add(stream);
    call.on('data', (answers: StreamedListing[]) => {
      for (const answer of answers) {
        const p = stream.pending.get(answer.id);
        if (!p) continue; // already failed at its deadline
        stream.pending.delete(answer.id);
        if (answer.listing) p.resolve(answer.listing);
        else p.reject(fromErrorPayload(answer.error ?? { kind: 'internal', message: 'no result for the listing' }));
      }
    });
    // 'error' comes before 'status' for a stream that failed; 'status' always comes, once.
    call.on('error', () => undefined);
    call.on('status', (s: StatusObject) => this.ended(stream, s));
    this.sweeper ??= setInterval(() => this.sweep(), 250).unref();
    return stream;
  }

  private halfClose(stream: Stream): void {
    stream.halfClosed = true;
    this.endIfHalfClosed(stream);
  }

  private endIfHalfClosed(stream: Stream): void {
    if (!stream.halfClosed || stream.endSent || !stream.writer.idle) return;
    stream.endSent = true;
    stream.call.end();
  }

  /** A stream ended: its slot freed, its unanswered listings sent again as calls (or, for UNIMPLEMENTED, the streams turned off). */
  private ended(stream: Stream, s: StatusObject): void {
    this.live.delete(stream);
    const slot = this.streams.indexOf(stream);
    if (slot >= 0) this.streams[slot] = undefined;
    if (s.code === status.UNIMPLEMENTED) this.fallbackUntil = Date.now() + (this.opts.fallbackMs ?? 30_000);
    const left = [...stream.pending.values()];
    stream.pending.clear();
    for (const p of left) {
      const remaining = p.deadline - Date.now();
      if (remaining <= 0) {
        p.reject(deadlineExceeded());
        continue;
      }
      resent.inc();
      this.client.listProjects(p.request, { actor: p.actor, requestId: p.requestId, deadlineMs: remaining }).then(p.resolve, p.reject);
    }
  }

  /** Fails the listings past their deadline (their answers, if any come, are dropped). */
  private sweep(): void {
    const now = Date.now();
    for (const stream of this.live) {
      for (const [id, p] of stream.pending) {
        if (p.deadline > now) continue;
        stream.pending.delete(id);
        p.reject(deadlineExceeded());
      }
    }
  }
}
