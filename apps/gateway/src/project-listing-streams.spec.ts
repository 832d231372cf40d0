import { EventEmitter } from 'node:events';
import { Metadata, status } from '@grpc/grpc-js';
import { projectsV1 } from '@glp/proto';
import {
  ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, currentContext, DomainError, requestGrpcCalls, runWithContext, signActor, verifyActor,
  type Actor, type ClientCallOptions,
} from '@glp/service-kit';
import type { ProjectListingBytes, StreamedListing } from './project-bytes-client';
import { ProjectListingStreams, type ProjectListingClient } from './project-listing-streams';

const SECRET = 'spec-secret';
const PATH = '/gitlab.projects.v1.ProjectsService/ListProjectsStream';
const user = (id: number, username: string): Actor => ({ kind: 'user', id, username, admin: false, scopes: ['api'] });
const alice = user(2, 'alice');
const bob = user(3, 'bob');
const listing = (tag: number): ProjectListingBytes => ({ projects: [Buffer.from([tag])], total: tag });
const request = (page: number) => projectsV1.ListProjectsRequest.fromPartial({ page, perPage: 20 });

/** A ListProjectsStream call as the test sees it: what was written, and the server's side to answer or end it. */
class FakeStream extends EventEmitter {
  readonly written: projectsV1.ListProjectsStreamItem[] = [];
  /** How many listings each message carried. */
  readonly messages: number[] = [];
  /** Write callbacks held back (a stream still writing), when `slow`. */
  readonly held: (() => void)[] = [];
  slow = false;
  halfClosed = false;
  constructor(readonly metadata: Metadata) {
    super();
  }
  write(message: projectsV1.ListProjectsStreamRequest, done: () => void): boolean {
    this.written.push(...message.listings);
    this.messages.push(message.listings.length);
    if (this.slow) this.held.push(done);
    else done();
    return true;
  }
  end(): void {
    this.halfClosed = true;
  }
  answer(id: number, result: Omit<StreamedListing, 'id'>): void {
    this.emit('data', [{ id, ...result }]);
  }
  finish(code = status.OK): void {
    if (code !== status.OK) this.emit('error', new Error('stream failed'));
    this.emit('status', { code, details: '', metadata: new Metadata() });
  }
  /** The caller each message carries, verified as projects verifies it. */
  callers(): string[] {
    return this.written.map((m) => verifyActor(m.actor?.payload, m.actor?.signature, SECRET, PATH).username);
  }
}

function fakeProjects() {
  const streams: FakeStream[] = [];
  const calls: { page: number; caller?: string; requestId?: string; deadlineMs?: number }[] = [];
  const client: ProjectListingClient = {
    async listProjects(r: projectsV1.ListProjectsRequest, o?: ClientCallOptions) {
      calls.push({ page: r.page, caller: (o?.actor ?? currentContext()?.actor)?.username, requestId: o?.requestId ?? currentContext()?.requestId, deadlineMs: o?.deadlineMs });
      return listing(100 + r.page);
    },
    signActorFor: (_method, actor) => signActor(actor, SECRET, PATH),
    raw: {
      listProjectsStream: (md: Metadata) => {
        const s = new FakeStream(md);
        streams.push(s);
        return s as never;
      },
    },
  };
  return { client, streams, calls };
}

const listAs = (s: ProjectListingStreams, actor: Actor, page: number, requestId = `req-${actor.username}-${page}`) =>
  runWithContext({ requestId, actor, operation: 'GET /projects' }, () => s.list(request(page)));
const settle = <T>(p: Promise<T>) => p.then((value) => ({ value }), (error: unknown) => ({ error }));
const tick = () => new Promise((r) => setImmediate(r));

describe('ProjectListingStreams', () => {
  let subject: ProjectListingStreams | undefined;
  afterEach(() => subject?.close());
  const make = (client: ProjectListingClient, opts: Partial<ConstructorParameters<typeof ProjectListingStreams>[1]> = {}) =>
    (subject = new ProjectListingStreams(client, { streams: 1, maxAgeMs: 60_000, deadlineMs: 10_000, ...opts }));

  it('writes each listing as a message of one open stream, with its own signed caller, request id and deadline, and answers it by its id', async () => {
    const { client, streams } = fakeProjects();
    const s = make(client);
    const before = Date.now();
    const a = listAs(s, alice, 1);
    const b = listAs(s, bob, 2);
    expect(streams).toHaveLength(1);
    const [stream] = streams;
    // the stream's own caller is the gateway, signed for the method
    expect(verifyActor(String(stream.metadata.get(ACTOR_HEADER)[0]), String(stream.metadata.get(ACTOR_SIGNATURE_HEADER)[0]), SECRET, PATH).username).toBe('gateway');
    expect(stream.callers()).toEqual(['alice', 'bob']);
    expect(stream.written.map((m) => [m.request?.page, m.requestId])).toEqual([[1, 'req-alice-1'], [2, 'req-bob-2']]);
    expect(stream.written[0].deadlineUnixMs).toBeGreaterThanOrEqual(before + 10_000);
    expect(new Set(stream.written.map((m) => m.id)).size).toBe(2);
    // answered out of order
    stream.answer(stream.written[1].id, { listing: listing(2) });
    stream.answer(stream.written[0].id, { listing: listing(1) });
    expect(await a).toEqual(listing(1));
    expect(await b).toEqual(listing(2));
  });

  it('gathers the listings that come while a message is being written into the next message, and answers a message of several', async () => {
    const { client, streams } = fakeProjects();
    const s = make(client);
    const first = listAs(s, alice, 1);
    const [stream] = streams;
    stream.slow = true;
    const more = [2, 3, 4].map((page) => listAs(s, bob, page));
    expect(stream.messages).toEqual([1, 1]);
    stream.held.shift()!();
    expect(stream.messages).toEqual([1, 1, 2]);
    expect(stream.written.map((m) => m.request?.page)).toEqual([1, 2, 3, 4]);
    stream.emit('data', stream.written.map((m) => ({ id: m.id, listing: listing(m.request!.page) })));
    expect(await first).toEqual(listing(1));
    expect(await Promise.all(more)).toEqual([2, 3, 4].map(listing));
  });

  it('rejects a listing answered with an error as its ListProjects call would have failed', async () => {
    const { client, streams } = fakeProjects();
    const s = make(client);
    const a = settle(listAs(s, alice, 1));
    streams[0].answer(streams[0].written[0].id, { error: { kind: 'bad_request', message: 'sort is invalid', fieldsJson: '', movedToId: 0 } });
    expect((await a as { error: DomainError }).error).toMatchObject({ kind: 'bad_request', message: 'sort is invalid' });
  });

  it('counts each listing as one gRPC call of its request', async () => {
    const { client, streams } = fakeProjects();
    const s = make(client);
    const counted = async () => (await requestGrpcCalls.get()).values.find((v) => v.labels.method === 'GET /projects')?.value ?? 0;
    const before = await counted();
    const all = [1, 2, 3].map((page) => listAs(s, alice, page));
    for (const m of streams[0].written) streams[0].answer(m.id, { listing: listing(1) });
    await Promise.all(all);
    expect(await counted()).toBe(before + 3);
  });

  it('spreads listings round-robin over `streams` streams and replaces a stream past its age, whose listings are still answered', async () => {
    const { client, streams } = fakeProjects();
    const s = make(client, { streams: 2, maxAgeMs: 1000 });
    const first = [1, 2, 3, 4].map((page) => listAs(s, alice, page));
    expect(streams.map((st) => st.written.map((m) => m.request?.page))).toEqual([[1, 3], [2, 4]]);
    const realNow = Date.now;
    try {
      Date.now = () => realNow() + 5000;
      const late = listAs(s, alice, 5);
      expect(streams[0].halfClosed).toBe(true);
      expect(streams).toHaveLength(3);
      expect(streams[2].written.map((m) => m.request?.page)).toEqual([5]);
      streams[2].answer(streams[2].written[0].id, { listing: listing(5) });
      expect(await late).toEqual(listing(5));
    } finally {
      Date.now = realNow;
    }
    // the half-closed stream's listings are answered before it ends
    for (const st of streams.slice(0, 2)) for (const m of st.written) st.answer(m.id, { listing: listing(m.request!.page) });
    expect(await Promise.all(first)).toEqual([1, 2, 3, 4].map(listing));
  });

  it('sends the listings a stream left unanswered again, each as a ListProjects call of its caller, and opens a new stream for later ones', async () => {
    const { client, streams, calls } = fakeProjects();
    const s = make(client);
    const a = listAs(s, alice, 1);
    const b = listAs(s, bob, 2);
    streams[0].answer(streams[0].written[0].id, { listing: listing(1) });
    streams[0].finish(status.UNAVAILABLE); // a lost connection (or status OK: projects shutting down)
    expect(await a).toEqual(listing(1));
    expect(await b).toEqual(listing(102));
    expect(calls).toEqual([{ page: 2, caller: 'bob', requestId: 'req-bob-2', deadlineMs: expect.any(Number) }]);
    expect(calls[0].deadlineMs).toBeLessThanOrEqual(10_000);
    const c = listAs(s, alice, 3);
    expect(streams).toHaveLength(2);
    streams[1].answer(streams[1].written[0].id, { listing: listing(3) });
    expect(await c).toEqual(listing(3));
  });

  it('goes back to ListProjects calls for a while when projects does not know the stream (UNIMPLEMENTED: an older projects)', async () => {
    const { client, streams, calls } = fakeProjects();
    const s = make(client, { fallbackMs: 60_000 });
    const a = listAs(s, alice, 1);
    streams[0].finish(status.UNIMPLEMENTED);
    expect(await a).toEqual(listing(101));
    expect(await listAs(s, bob, 2)).toEqual(listing(102));
    expect(streams).toHaveLength(1);
    expect(calls.map((c) => [c.page, c.caller])).toEqual([[1, 'alice'], [2, 'bob']]);
  });

  it('fails a listing still unanswered at its deadline, as a call past its deadline fails, and drops its late answer', async () => {
    const { client, streams } = fakeProjects();
    const s = make(client, { deadlineMs: 20 });
    const a = settle(listAs(s, alice, 1));
    const outcome = await a;
    expect((outcome as { error: DomainError }).error).toMatchObject({ kind: 'unavailable', message: 'deadline exceeded' });
    streams[0].answer(streams[0].written[0].id, { listing: listing(1) }); // too late: nobody to answer
    await tick();
  });

  it('makes each listing a ListProjects call of its own with streams = 0', async () => {
    const { client, streams, calls } = fakeProjects();
    const s = make(client, { streams: 0 });
    expect(await listAs(s, alice, 4)).toEqual(listing(104));
    expect(streams).toHaveLength(0);
    expect(calls.map((c) => [c.page, c.caller, c.requestId])).toEqual([[4, 'alice', 'req-alice-4']]);
  });
});
