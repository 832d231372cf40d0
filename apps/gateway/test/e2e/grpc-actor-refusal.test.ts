import { credentials, makeGenericClientConstructor, Metadata, status, type Client, type ServiceDefinition, type ServiceError } from '@grpc/grpc-js';
import { accessRequestsV1, hooksV1, identityV1, projectsV1, pushRulesV1, repoAdminV1, webhookDispatcherV1 } from '@glp/proto';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, DEV_ACTOR_SECRET, signActor, systemActor, type Actor } from '@glp/service-kit';
import { startStack, type RunningStack } from '@glp/testing';

/**
 * Every gRPC method of every service, called directly (not through the gateway) without a valid signed actor, is
 * refused with UNAUTHENTICATED before it does anything: no actor at all, an actor signed with another secret, an expired
 * one, and a valid signature replayed from another method or with another message. A correctly signed call is not refused (the control).
 */
describe('direct gRPC calls without a valid signed actor', () => {
  let stack: RunningStack;
  const admin: Actor = { kind: 'user', id: 1, username: 'root', admin: true, scopes: ['api'] };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_grpc_refusal' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const services = (): [string, string, ServiceDefinition][] => [
    ['identity', stack.grpcAddrs.identity, identityV1.IdentityServiceService as unknown as ServiceDefinition],
    ['projects', stack.grpcAddrs.projects, projectsV1.ProjectsServiceService as unknown as ServiceDefinition],
    ['access-requests', stack.grpcAddrs.accessRequests, accessRequestsV1.AccessRequestsServiceService as unknown as ServiceDefinition],
    ['repo-admin', stack.grpcAddrs.repoAdmin, repoAdminV1.RepoAdminServiceService as unknown as ServiceDefinition],
    ['hooks', stack.grpcAddrs.hooks, hooksV1.HooksServiceService as unknown as ServiceDefinition],
    ['webhook-dispatcher', stack.grpcAddrs.webhookDispatcher, webhookDispatcherV1.WebhookDispatcherServiceService as unknown as ServiceDefinition],
    ['push-rules', stack.grpcAddrs.pushRules, pushRulesV1.PushRulesServiceService as unknown as ServiceDefinition],
  ];

  const signed = (actor: Actor, secret: string, method: string, now = Date.now(), body?: Uint8Array) => {
    const m = new Metadata();
    const { payload, signature } = signActor(actor, secret, method, now, body);
    m.set(ACTOR_HEADER, payload);
    m.set(ACTOR_SIGNATURE_HEADER, signature);
    return m;
  };

  /**
   * Calls one method with this metadata and an empty request (decoded from zero bytes: every field at its default, so
   * the client can encode it); resolves with the status code it ended with.
   */
  function call(client: Client, name: string, def: ServiceDefinition[string], metadata: Metadata): Promise<number> {
    const c = client as unknown as Record<string, (...args: unknown[]) => { on(ev: string, f: (x: unknown) => void): void; end(): void }>;
    const deadline = Date.now() + 5000;
    const empty = def.requestDeserialize(Buffer.alloc(0));
    return new Promise((resolve) => {
      const done = (err: ServiceError | null) => resolve(err ? err.code : status.OK);
      if (def.requestStream && !def.responseStream) {
        const stream = c[name]!(metadata, { deadline }, done) as unknown as { write(m: unknown): void; end(): void };
        stream.write(empty);
        stream.end();
      } else if (!def.requestStream && def.responseStream) {
        const stream = c[name]!(empty, metadata, { deadline });
        stream.on('error', (e) => resolve((e as ServiceError).code));
        stream.on('end', () => resolve(status.OK));
        stream.on('data', () => undefined);
      } else {
        c[name]!(empty, metadata, { deadline }, done);
      }
    });
  }

  it('refuses every method of every service', async () => {
    const refused: string[] = [];
    const wrong: string[] = [];
    for (const [service, addr, definition] of services()) {
      const Ctor = makeGenericClientConstructor(definition, service);
      const client = new Ctor(addr, credentials.createInsecure());
      try {
        const methods = Object.entries(definition);
        expect(methods.length).toBeGreaterThan(0);
        for (const [name, def] of methods) {
          const attempts: [string, Metadata][] = [
            ['no actor', new Metadata()],
            ['another secret', signed(admin, 'not-the-cluster-secret-0123456789', def.path)],
            ['expired', signed(admin, DEV_ACTOR_SECRET, def.path, Date.now() - 3_600_000)],
            ['replayed from another method', signed(admin, DEV_ACTOR_SECRET, '/gitlab.identity.v1.IdentityService/GetUser' === def.path ? '/gitlab.projects.v1.ProjectsService/GetProject' : '/gitlab.identity.v1.IdentityService/GetUser')],
            // A valid signature for this method, captured from a call with another message (field 1 = 1).
            ['replayed with another message', signed(admin, DEV_ACTOR_SECRET, def.path, Date.now(), Buffer.from([0x08, 0x01]))],
          ];
          for (const [how, metadata] of attempts) {
            const code = await call(client, name, def, metadata);
            (code === status.UNAUTHENTICATED ? refused : wrong).push(`${service} ${def.path} (${how}) → ${status[code]}`);
          }
        }
      } finally {
        client.close();
      }
    }
    console.log(`direct gRPC: ${refused.length} calls without a valid actor, all refused with UNAUTHENTICATED`);
    expect(wrong).toEqual([]);
    expect(refused.length).toBeGreaterThan(100);
  });

  it('does not refuse a correctly signed call (the control)', async () => {
    const Ctor = makeGenericClientConstructor(identityV1.IdentityServiceService as unknown as ServiceDefinition, 'identity');
    const client = new Ctor(stack.grpcAddrs.identity, credentials.createInsecure());
    try {
      const def = (identityV1.IdentityServiceService as unknown as ServiceDefinition).getApplicationSettings!;
      expect(status[await call(client, 'getApplicationSettings', def, signed(systemActor('e2e'), DEV_ACTOR_SECRET, def.path))]).toBe('OK');
    } finally {
      client.close();
    }
  });

  it('refuses a captured upload stream replayed into another project, or with other bytes', async () => {
    const api = (p: string, init: RequestInit = {}) =>
      fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json', ...init.headers } });
    const create = async (name: string) => {
      const res = await api('/projects', { method: 'POST', body: JSON.stringify({ name }) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: number }).id;
    };
    const [mine, other] = [await create('upload-replay-a'), await create('upload-replay-b')];
    const def = repoAdminV1.RepoAdminServiceService.createUpload;
    const client = new repoAdminV1.RepoAdminServiceClient(stack.grpcAddrs.repoAdmin, credentials.createInsecure());
    const fileOf = (projectId: number, streamId: string): repoAdminV1.CreateUploadRequest => ({
      part: { $case: 'file', value: { project: { selector: { $case: 'id', value: projectId } }, fileName: 'plan.txt', contentType: 'text/plain', streamId } },
    });
    /** One CreateUpload call: the first message, then the chunks; the status code and the stored file (project, name, size). */
    const upload = (metadata: Metadata, first: repoAdminV1.CreateUploadRequest, ...chunks: string[]) =>
      new Promise<{ code: number; stored?: [number | undefined, string | undefined, number | undefined] }>((resolve) => {
        const stream = client.createUpload(metadata, { deadline: Date.now() + 10_000 }, (err, res) => resolve({ code: err ? err.code : status.OK, stored: res?.upload && [res.upload.projectId, res.upload.fileName, res.upload.size] }));
        stream.write(first);
        for (const c of chunks) stream.write({ part: { $case: 'chunk', value: Buffer.from(c) } });
        stream.end();
      });
    try {
      // The call as the gateway makes it for root: signed over its first message (project, file, a fresh stream id).
      const first = fileOf(mine, '3f0b1c9e-6a47-4c51-9a3e-0d6c2b7e5a10');
      const captured = signed(admin, DEV_ACTOR_SECRET, def.path, Date.now(), def.requestSerialize(first));
      const legit = await upload(captured, first, 'the real plan');
      expect(legit).toEqual({ code: status.OK, stored: [mine, 'plan.txt', 'the real plan'.length] });
      // The captured header replayed: into another project, with the same first message and other bytes, with no stream id.
      expect(status[(await upload(captured, fileOf(other, '3f0b1c9e-6a47-4c51-9a3e-0d6c2b7e5a10'), 'planted')).code]).toBe('UNAUTHENTICATED');
      expect(status[(await upload(captured, first, 'planted')).code]).toBe('UNAUTHENTICATED');
      // A header signed for the method alone (bound to no message) does not open a stream either.
      expect(status[(await upload(signed(admin, DEV_ACTOR_SECRET, def.path), fileOf(other, '9b1e7c2a-0d4f-4e8b-8f3a-5c6d7e8f9a0b'), 'planted')).code]).toBe('UNAUTHENTICATED');
      const noId = fileOf(mine, '');
      expect(status[(await upload(signed(admin, DEV_ACTOR_SECRET, def.path, Date.now(), def.requestSerialize(noId)), noId, 'x')).code]).toBe('UNAUTHENTICATED');
      // Nothing was kept beyond the legitimate file.
      const listed = (await (await api(`/projects/${other}/uploads`)).json()) as unknown[];
      expect(listed).toEqual([]);
      expect(((await (await api(`/projects/${mine}/uploads`)).json()) as unknown[]).length).toBe(1);
    } finally {
      client.close();
    }
  });
});
