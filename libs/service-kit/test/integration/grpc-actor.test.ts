import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { identityV1 } from '@glp/proto';
import {
  bindService, createGrpcClient, createLogger, currentContext, DomainError, invalid, notFound, runWithContext, startGrpcServer,
  type Actor, type RunningGrpcServer,
} from '@glp/service-kit';

const SECRET = 'integration-secret-0123456789';
const logger = createLogger('grpc-test', 'silent');
const alice: Actor = { kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api'], external: false };

/** A real gRPC server and client over TCP: the signed actor, error mapping and deadlines on the wire. */
describe('gRPC bootstrap', () => {
  let server: RunningGrpcServer;
  let seen: { actor?: Actor; requestId?: string; metadata?: Metadata; selector?: identityV1.GetUserRequest['selector'] } = {};

  beforeAll(async () => {
    const handlers = {
      async getUser(req: identityV1.GetUserRequest, ctx: { actor: Actor; requestId: string; metadata: Metadata }) {
        seen = { actor: ctx.actor, requestId: currentContext()?.requestId, metadata: ctx.metadata, selector: req.selector };
        if (req.selector?.$case === 'id' && req.selector.value === 404) throw notFound('User');
        if (req.selector?.$case === 'id' && req.selector.value === 400) throw invalid({ username: ['is invalid'] });
        if (req.selector?.$case === 'id' && req.selector.value === 500) throw new Error('secret database detail');
        if (req.selector?.$case === 'id' && req.selector.value === 999) await new Promise((r) => setTimeout(r, 500));
        return { user: identityV1.User.fromPartial({ id: ctx.actor.id, username: ctx.actor.username }) };
      },
      authenticateToken: async () => ({ status: 0, scopes: [], tokenId: 0 }),
      createUser: async () => ({}),
      createPersonalAccessToken: async () => ({}),
      getNamespace: async () => ({ callerAccessLevel: 0 }),
    };
    // The methods this test does not call answer empty.
    for (const name of Object.keys(identityV1.IdentityServiceService)) (handlers as Record<string, unknown>)[name] ??= async () => ({});
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      services: [{ name: 'gitlab.identity.v1.IdentityService', definition: identityV1.IdentityServiceService,
        implementation: bindService(identityV1.IdentityServiceService, handlers as never, { actorSecret: SECRET, logger }) }],
    });
  });
  afterAll(() => server.stop(1000));

  const client = (secret = SECRET, deadlineMs?: number) =>
    createGrpcClient(identityV1.IdentityServiceClient, `127.0.0.1:${server.port}`, { actorSecret: secret, defaultDeadlineMs: deadlineMs });

  it('carries the signed actor and the request id (from the caller\'s context) to the handler', async () => {
    const c = client();
    const res = await runWithContext({ requestId: 'req-123', actor: alice }, () => c.getUser({ selector: { $case: 'id', value: 1 } }));
    expect(res.user).toMatchObject({ id: 7, username: 'alice' });
    expect(seen).toMatchObject({ actor: alice, requestId: 'req-123' });
    c.close();
  });

  it('rejects an actor signed with another secret', async () => {
    const c = client('some-other-secret-0000000');
    await expect(c.getUser({ selector: { $case: 'id', value: 1 } }, { actor: alice })).rejects.toMatchObject({ kind: 'unauthenticated' });
    c.close();
  });

  it('rejects a call without actor metadata, and a tampered one', async () => {
    const raw = new identityV1.IdentityServiceClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
    const call = (md: Metadata) =>
      new Promise<ServiceError>((resolve) => raw.getUser({ selector: { $case: 'id', value: 1 } }, md, (err) => resolve(err!)));
    expect((await call(new Metadata())).code).toBe(status.UNAUTHENTICATED);
    const forged = new Metadata();
    forged.set('x-glp-actor', Buffer.from(JSON.stringify({ ...alice, admin: true, iat: Math.floor(Date.now() / 1000) })).toString('base64url'));
    forged.set('x-glp-actor-sig', 'not-a-valid-signature-aaaaaaaaaaaaaaaaaaaaaa');
    expect((await call(forged)).code).toBe(status.UNAUTHENTICATED);
    raw.close();
  });

  it('refuses a valid actor header captured from one method and replayed against another', async () => {
    const { signActor } = await import('@glp/service-kit');
    const raw = new identityV1.IdentityServiceClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
    const signedFor = (method: string) => {
      const md = new Metadata();
      const body = identityV1.GetUserRequest.encode({ selector: { $case: 'id', value: 1 } }).finish();
      const { payload, signature } = signActor({ ...alice, admin: true }, SECRET, method, Date.now(), body);
      md.set('x-glp-actor', payload);
      md.set('x-glp-actor-sig', signature);
      return md;
    };
    const getUser = (md: Metadata) =>
      new Promise<ServiceError | null>((resolve) => raw.getUser({ selector: { $case: 'id', value: 1 } }, md, (err) => resolve(err)));
    // Captured from a GetNamespace call: same secret, fresh, but for another method.
    const replayed = await getUser(signedFor('/gitlab.identity.v1.IdentityService/GetNamespace'));
    expect(replayed?.code).toBe(status.UNAUTHENTICATED);
    expect(replayed?.details).toBe('actor rejected: bad signature');
    expect(await getUser(signedFor('/gitlab.identity.v1.IdentityService/GetUser'))).toBeNull();
    raw.close();
  });

  it('refuses a captured (metadata, message) pair replayed with another message', async () => {
    // An administrator's call, its metadata captured on the wire (here: as the server received it).
    const c = client();
    const root: Actor = { kind: 'user', id: 1, username: 'root', admin: true, scopes: ['api'], external: false };
    await c.getUser({ selector: { $case: 'id', value: 1 } }, { actor: root });
    const captured = new Metadata();
    for (const key of ['x-glp-actor', 'x-glp-actor-sig']) captured.set(key, seen.metadata!.get(key)[0]!);
    c.close();
    const raw = new identityV1.IdentityServiceClient(`127.0.0.1:${server.port}`, credentials.createInsecure());
    const getUser = (id: number) =>
      new Promise<ServiceError | null>((resolve) => raw.getUser({ selector: { $case: 'id', value: id } }, captured.clone(), (err) => resolve(err)));
    seen = {};
    const replayed = await getUser(2);
    expect(replayed?.code).toBe(status.UNAUTHENTICATED);
    expect(replayed?.details).toBe('actor rejected: bad signature');
    expect(seen).toEqual({}); // the handler never ran
    // The very same message is the very same request: accepted (it asks nothing the administrator did not ask).
    expect(await getUser(1)).toBeNull();
    expect(seen.selector).toEqual({ $case: 'id', value: 1 });
    raw.close();
  });

  it('maps domain errors across the wire and hides internal ones', async () => {
    const c = client();
    await expect(c.getUser({ selector: { $case: 'id', value: 404 } }, { actor: alice })).rejects.toMatchObject({ kind: 'not_found', message: 'User' });
    await expect(c.getUser({ selector: { $case: 'id', value: 400 } }, { actor: alice })).rejects.toMatchObject({ kind: 'invalid', fields: { username: ['is invalid'] } });
    const internal = await c.getUser({ selector: { $case: 'id', value: 500 } }, { actor: alice }).catch((e: DomainError) => e);
    expect(internal).toMatchObject({ kind: 'internal' });
    expect((internal as DomainError).message).not.toContain('secret');
    c.close();
  });

  it('enforces deadlines', async () => {
    const c = client(SECRET, 100);
    await expect(c.getUser({ selector: { $case: 'id', value: 999 } }, { actor: alice })).rejects.toMatchObject({ kind: 'unavailable' });
    c.close();
  });

  it('serves the standard grpc.health.v1 service', async () => {
    const { makeGenericClientConstructor } = await import('@grpc/grpc-js');
    const { service } = await import('grpc-health-check');
    const Health = makeGenericClientConstructor(service as never, 'Health');
    const h = new Health(`127.0.0.1:${server.port}`, credentials.createInsecure()) as unknown as {
      check(req: { service: string }, cb: (e: Error | null, r: { status: string }) => void): void; close(): void;
    };
    const res = await new Promise<{ status: string }>((resolve, reject) => h.check({ service: 'gitlab.identity.v1.IdentityService' }, (e, r) => (e ? reject(e) : resolve(r))));
    expect(res.status).toBe('SERVING');
    h.close();
  });
});
