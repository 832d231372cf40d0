import { Metadata, status, type ClientDuplexStream, type StatusObject } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { projectsV1 } from '@glp/proto';
import {
  ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, createLogger, REQUEST_ID_HEADER, requestSqlQueries, signActor, systemActor, type Actor, type CallContext,
} from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { EncodedProjectCache } from '../../src/grpc/encoded-projects';
import { ListingStreamServer } from '../../src/grpc/listing-stream';
import { projectsService, servedProjectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';
import { noGroupsIdentity } from './identity-stub';
import { startProjectsGrpc, type ProjectsGrpcClient } from './projects-grpc';

const SECRET = 'listing-stream-secret';
const PATH = '/gitlab.projects.v1.ProjectsService/ListProjectsStream';
const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const alice = user(2, 'alice');
const bob = user(3, 'bob');
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const { VISIBILITY_PUBLIC: PUBLIC, VISIBILITY_PRIVATE: PRIVATE, VISIBILITY_INTERNAL: INTERNAL } = projectsV1.Visibility;
const list = (r: Partial<projectsV1.ListProjectsRequest> = {}) => projectsV1.ListProjectsRequest.fromPartial({ page: 1, perPage: 20, orderBy: 'id', sort: 'asc', ...r });

type Duplex = ClientDuplexStream<projectsV1.ListProjectsStreamRequest, projectsV1.ListProjectsStreamResponse>;

/**
 * ListProjectsStream through a real gRPC server, served as main.ts serves it (ListingStreamServer, kept encodings): each
 * message answered as ListProjects answers its caller, matched by id; a message's caller verified on its own; its
 * deadline honoured; its statements counted under the method; the stream ended once its answers are sent when the
 * client half-closes it or the server drains.
 */
describe('ListProjectsStream: listings of many callers over one call', () => {
  const schema = uniqueName('it_listing_stream');
  let pool: Pool;
  let grpc: Awaited<ReturnType<typeof startProjectsGrpc>> | undefined;
  let client: ProjectsGrpcClient;
  let streams: ListingStreamServer;
  const names = (r: projectsV1.ListProjectsResponse | undefined) => r?.projects.map((p) => p.name);
  const sqlOfStream = async () => (await requestSqlQueries.get()).values.find((v) => v.labels.method === PATH)?.value ?? 0;

  /** A stream opened as the gateway opens one (its own actor signed for the method), and what it receives. */
  const open = (streamActor: Actor = systemActor('gateway'), signedFor = PATH) => {
    const md = new Metadata();
    const signed = signActor(streamActor, SECRET, signedFor);
    md.set(ACTOR_HEADER, signed.payload);
    md.set(ACTOR_SIGNATURE_HEADER, signed.signature);
    md.set(REQUEST_ID_HEADER, 'stream-1');
    const call: Duplex = client.raw.listProjectsStream(md);
    const answers: projectsV1.ListProjectsStreamAnswer[] = [];
    const messages: number[] = [];
    call.on('data', (a: projectsV1.ListProjectsStreamResponse) => {
      answers.push(...a.answers);
      messages.push(a.answers.length);
    });
    call.on('error', () => undefined);
    const ended = new Promise<StatusObject>((resolve) => call.on('status', resolve));
    /** Sends these listings as one message. */
    const send = (...listings: projectsV1.ListProjectsStreamItem[]) => call.write(projectsV1.ListProjectsStreamRequest.fromPartial({ listings }));
    return { call, send, answers, messages, ended };
  };
  const message = (id: number, actor: Actor | undefined, r: Partial<projectsV1.ListProjectsRequest> = {}, deadlineUnixMs = Date.now() + 10_000) =>
    projectsV1.ListProjectsStreamItem.fromPartial({
      id, request: list(r), actor: actor && signActor(actor, SECRET, PATH), requestId: `req-${id}`, deadlineUnixMs,
    });
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(check()).toBe(true);
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    const plain = projectsService({ pool, identity: noGroupsIdentity(), topic: 'test.projects', countLimit: 10000 });
    const served = servedProjectsService({ pool, identity: noGroupsIdentity(), topic: 'test.projects', countLimit: 10000 }, new EncodedProjectCache(1024 * 1024));
    streams = new ListingStreamServer(served.serveListing, { actorSecret: SECRET, logger: createLogger('projects-test', 'silent') });
    grpc = await startProjectsGrpc(served.handlers, { actorSecret: SECRET, definition: served.definition, streaming: { listProjectsStream: streams.handler } });
    client = grpc.client;
    await upsertNamespace(pool, { id: 10, name: 'alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, owner_id: alice.id, owner_username: 'alice', owner_name: 'Alice', owner_state: 'active', version: 1 });
    for (const [name, visibility] of [['open', PUBLIC], ['inside', INTERNAL], ['secret', PRIVATE]] as const) {
      await plain.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, visibility, namespaceId: 10 }), ctx(alice));
    }
  }, 60_000);
  afterAll(async () => {
    await grpc?.stop();
    await pool?.end();
    await dropSchemas(schema);
  });

  it('answers each message as ListProjects answers its caller, by its id', async () => {
    const { call, send, answers, ended } = open();
    const asked: [number, Actor, Partial<projectsV1.ListProjectsRequest>][] = [
      [7, alice, {}], [8, bob, {}], [9, anonymous, {}], [10, alice, { visibility: PRIVATE }], [11, alice, { search: 'nothing-like-it' }],
    ];
    // one message of three listings, then one of two
    send(...asked.slice(0, 3).map(([id, actor, r]) => message(id, actor, r)));
    send(...asked.slice(3).map(([id, actor, r]) => message(id, actor, r)));
    await until(() => answers.length === asked.length);
    call.end();
    expect((await ended).code).toBe(status.OK);
    const byId = new Map(answers.map((a) => [a.id, a]));
    for (const [id, actor, r] of asked) {
      const answer = byId.get(id);
      expect(answer?.result?.$case).toBe('listing');
      expect(answer?.result?.$case === 'listing' && answer.result.value).toEqual(await client.listProjects(list(r), { actor }));
    }
    const listing = (id: number) => { const a = byId.get(id); return a?.result?.$case === 'listing' ? a.result.value : undefined; };
    expect(names(listing(7))).toEqual(['open', 'inside', 'secret']);
    expect(names(listing(8))).toEqual(['open', 'inside']);
    expect(names(listing(9))).toEqual(['open']);
    expect(names(listing(10))).toEqual(['secret']);
    expect(names(listing(11))).toEqual([]);
  });

  it('fails only the message whose caller is not signed for ListProjectsStream: forged, for another method, or missing', async () => {
    const { call, send, answers, ended } = open();
    const forged = signActor(bob, SECRET, PATH);
    send(
      { ...message(1, undefined), actor: { payload: forged.payload.replace(/.$/, 'A'), signature: forged.signature } },
      { ...message(2, undefined), actor: signActor(alice, SECRET, '/gitlab.projects.v1.ProjectsService/ListProjects') },
      message(3, undefined),
      message(4, alice),
    );
    call.end();
    expect((await ended).code).toBe(status.OK);
    const outcome = new Map(answers.map((a) => [a.id, a.result?.$case === 'error' ? a.result.value.kind : names(a.result?.value)]));
    expect(Object.fromEntries(outcome)).toEqual({ 1: 'unauthenticated', 2: 'unauthenticated', 3: 'unauthenticated', 4: ['open', 'inside', 'secret'] });
  });

  it('answers a message past its deadline DEADLINE_EXCEEDED-like (unavailable) without running its listing', async () => {
    const before = await sqlOfStream();
    const { call, send, answers, ended } = open();
    send(message(5, alice, {}, Date.now() - 1));
    call.end();
    await ended;
    expect(answers).toEqual([projectsV1.ListProjectsStreamAnswer.fromPartial({ id: 5, result: { $case: 'error', value: { kind: 'unavailable', message: 'deadline exceeded' } } })]);
    expect(await sqlOfStream()).toBe(before);
  });

  it('runs each listing\'s statements in its own request context, counted under the method: no more than a ListProjects call', async () => {
    const sqlOfUnary = async () => (await requestSqlQueries.get()).values.find((v) => v.labels.method === '/gitlab.projects.v1.ProjectsService/ListProjects')?.value ?? 0;
    // (the first listing keeps the projects' encodings; the ones after read versions only: the same on both paths)
    await client.listProjects(list({ orderBy: 'name' }), { actor: bob });
    const unaryBefore = await sqlOfUnary();
    await client.listProjects(list({ orderBy: 'name' }), { actor: bob });
    const perListing = (await sqlOfUnary()) - unaryBefore;
    expect(perListing).toBeGreaterThan(0);
    const before = await sqlOfStream();
    const { call, send, answers, messages, ended } = open();
    for (let id = 1; id <= 6; id++) send(message(id, bob, { orderBy: 'name' }));
    call.end();
    await ended;
    expect(answers).toHaveLength(6);
    expect(messages.reduce((a, b) => a + b, 0)).toBe(6); // (in as many messages as were ready together)
    // each listing at least its page's statement, and no more than a ListProjects call makes
    const ran = (await sqlOfStream()) - before;
    expect(ran).toBeGreaterThanOrEqual(6);
    expect(ran).toBeLessThanOrEqual(6 * perListing);
  });

  it('rejects a stream whose own caller is not signed for the method: UNAUTHENTICATED', async () => {
    const { ended } = open(systemActor('gateway'), '/gitlab.projects.v1.ProjectsService/ListProjects');
    expect((await ended).code).toBe(status.UNAUTHENTICATED);
  });

  it('ends its streams at drain() once the listings in flight are answered; a stream opened after ends at once', async () => {
    // A server of its own whose listings wait for the test: one is in flight when the drain comes.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const started: number[] = [];
    const gated = new ListingStreamServer(async (actor) => {
      started.push(actor.id);
      await gate;
      return projectsV1.ListProjectsResponse.fromPartial({ total: actor.id });
    }, { actorSecret: SECRET, logger: createLogger('projects-test', 'silent') });
    const other = await startProjectsGrpc(projectsService({ pool, identity: noGroupsIdentity(), topic: 'test.projects', countLimit: 10000 }), {
      actorSecret: SECRET, streaming: { listProjectsStream: gated.handler },
    });
    const saved = client;
    try {
      client = other.client;
      const { send, answers, ended } = open();
      send(message(1, alice));
      await until(() => started.length === 1);
      expect(gated.openStreams).toBe(1);
      gated.drain();
      await new Promise((r) => setTimeout(r, 50));
      expect(answers).toEqual([]); // not ended under the listing in flight
      release();
      expect((await ended).code).toBe(status.OK);
      expect(answers.map((a) => [a.id, a.result?.$case === 'listing' && a.result.value.total])).toEqual([[1, alice.id]]);
      expect(gated.openStreams).toBe(0);
      const late = open();
      expect((await late.ended).code).toBe(status.OK);
      expect(late.answers).toEqual([]);
    } finally {
      client = saved;
      release();
      await other.stop();
    }
  });
});
