import { randomUUID } from 'node:crypto';
import { type handleBidiStreamingCall, type Metadata, type ServerDuplexStream } from '@grpc/grpc-js';
import { projectsV1 } from '@glp/proto';
import {
  ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ActorVerifier, CoalescingWriter, fromErrorPayload, grpcServerHandled, itemCallersFor, REQUEST_ID_HEADER,
  toErrorPayload, toGrpcError, type Actor, type ErrorPayload, type Logger,
} from '@glp/service-kit';

type Req = projectsV1.ListProjectsStreamRequest;
type Res = projectsV1.ListProjectsStreamResponse;
type Item = projectsV1.ListProjectsStreamItem;
type Answer = projectsV1.ListProjectsStreamAnswer;

/** What answers one listing of the stream: ListProjects for `actor` (run in the item's own request context). */
export type ServeListing = (actor: Actor, request: projectsV1.ListProjectsRequest) => Promise<projectsV1.ListProjectsResponse>;

const DEADLINE_EXCEEDED: ErrorPayload = { kind: 'unavailable', message: 'deadline exceeded', fieldsJson: '', movedToId: 0 };

/** One open ListProjectsStream call. */
interface OpenStream {
  call: ServerDuplexStream<Req, Res>;
  /** The answers, written as they are done: those done while a message is being written go in the next. */
  writer: CoalescingWriter<Answer, Res>;
  inFlight: number;
  /** The gateway half-closed it, or projects is shutting down: it ends once its answers are sent. */
  ending: boolean;
  closed: boolean;
}

function firstString(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/**
 * ListProjectsStream (projects.proto): the gateway's listings over one long-lived call, each answered as soon as it is
 * done (the answers done while a message is being written go together in the next: CoalescingWriter). Each listing is served as a ListProjects call of its own would be: its caller verified (signed for
 * this method; a forged one fails that listing only), its statements run and logged in its own request context, its
 * outcome counted in `grpc_server_handling_seconds` under this method; a listing past its deadline is not started.
 *
 * A stream ends (status OK) once its answers are sent, when the gateway half-closes it or at `drain()` (shutdown); the
 * gateway sends again, on another stream, the listings it sent after that.
 */
export class ListingStreamServer {
  private readonly open = new Set<OpenStream>();
  private draining = false;
  private readonly path: string;
  private readonly checks: ReturnType<typeof itemCallersFor>;

  constructor(private readonly serve: ServeListing, opts: { actorSecret: string; logger: Logger }) {
    this.path = projectsV1.ProjectsServiceService.listProjectsStream.path;
    this.checks = itemCallersFor(this.path, new ActorVerifier(opts.actorSecret), opts.logger);
  }

  readonly handler: handleBidiStreamingCall<Req, Res> = (call) => {
    const requestId = firstString(call.metadata, REQUEST_ID_HEADER) ?? randomUUID();
    try {
      this.checks.verifyActor(firstString(call.metadata, ACTOR_HEADER), firstString(call.metadata, ACTOR_SIGNATURE_HEADER), requestId, 'call');
    } catch (err) {
      const e = toGrpcError(err);
      grpcServerHandled.observe({ method: this.path, code: 'UNAUTHENTICATED' }, 0);
      call.emit('error', { code: e.code, details: e.details, metadata: e.metadata });
      return;
    }
    const stream: OpenStream = {
      call,
      writer: new CoalescingWriter<Answer, Res>((message, done) => call.write(message, done), (answers) => ({ answers }), () => this.endWhenAnswered(stream)),
      inFlight: 0,
      ending: this.draining,
      closed: false,
    };
    this.open.add(stream);
    const close = () => {
      stream.closed = true;
      this.open.delete(stream);
    };
    call.on('data', (message: Req) => {
      for (const item of message.listings) this.onListing(stream, item);
    });
    call.on('end', () => {
      stream.ending = true;
      this.endWhenAnswered(stream);
    });
    call.on('cancelled', close);
    call.on('error', close);
    call.on('close', close);
    this.endWhenAnswered(stream);
  };

  /** Ends every open stream once its answers are sent (shutdown); streams opened after this end at once. */
  drain(): void {
    this.draining = true;
    for (const stream of this.open) {
      stream.ending = true;
      this.endWhenAnswered(stream);
    }
  }

  /** Streams open now (tests). */
  get openStreams(): number {
    return this.open.size;
  }

  private onListing(stream: OpenStream, item: Item): void {
    stream.inFlight++;
    const started = process.hrtime.bigint();
    this.answer(item).then((answer) => {
      const code = answer.result?.$case === 'error' ? String(toGrpcError(fromErrorPayload(answer.result.value)).code) : 'OK';
      grpcServerHandled.observe({ method: this.path, code }, Number(process.hrtime.bigint() - started) / 1e9);
      stream.inFlight--;
      if (stream.closed) return;
      stream.writer.push(answer);
    });
  }

  /** The listing's answer: its listing, or the error ListProjects would have answered (never a rejection). */
  private async answer(message: Item): Promise<Answer> {
    const id = message.id;
    const deadline = Number(message.deadlineUnixMs);
    if (deadline > 0 && Date.now() > deadline) return { id, result: { $case: 'error', value: DEADLINE_EXCEEDED } };
    const requestId = message.requestId || randomUUID();
    let actor: Actor;
    try {
      actor = this.checks.callers.verify(message.actor, requestId);
    } catch (err) {
      return { id, result: { $case: 'error', value: toErrorPayload(err) } };
    }
    const request = message.request ?? projectsV1.ListProjectsRequest.fromPartial({});
    const outcome = await this.checks.callers.run(actor, requestId, () => this.serve(actor, request));
    return { id, result: outcome.ok ? { $case: 'listing', value: outcome.value } : { $case: 'error', value: outcome.error } };
  }

  private endWhenAnswered(stream: OpenStream): void {
    if (!stream.ending || stream.inFlight > 0 || !stream.writer.idle || stream.closed) return;
    stream.closed = true;
    this.open.delete(stream);
    stream.call.end();
  }
}

