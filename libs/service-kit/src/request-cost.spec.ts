import { ANONYMOUS, type Actor } from './actor';
import { runWithContext } from './context';
import { createGrpcClient } from './grpc-client';
import { countRequestGrpcCall, countRequestSqlQuery, requestGrpcCalls, requestSqlQueries, UNNAMED_OPERATION } from './request-cost';
import type { Counter } from 'prom-client';

const alice: Actor = { kind: 'user', id: 42, username: 'alice', admin: false, scopes: ['api'] };

async function count(counter: Counter<'method'>, method: string): Promise<number> {
  const values = (await counter.get()).values;
  return values.find((v) => v.labels.method === method)?.value ?? 0;
}

/** A generated-client stand-in: one RPC that answers at once (on the prototype, enumerable, as grpc-js generates it). */
function FakeClient(): void {}
Object.assign(FakeClient, {
  service: { getUser: { path: '/test.v1.Users/GetUser', requestSerialize: () => Buffer.alloc(0), responseDeserialize: () => ({ ok: true }) } },
});
Object.assign(FakeClient.prototype, {
  getUser(): void {},
  // What the wrapped call starts (grpc-js Client): answered at once.
  makeUnaryRequest(_path: string, _ser: unknown, _de: unknown, _req: unknown, _md: unknown, _opts: unknown, cb: (err: null, res: { ok: true }) => void): unknown {
    cb(null, { ok: true });
    return {};
  },
  close(): void {},
});

describe('request cost counters', () => {
  it('counts SQL queries and gRPC calls inside a request context, by its operation', async () => {
    const [sql, grpc] = [await count(requestSqlQueries, 'GET /spec'), await count(requestGrpcCalls, 'GET /spec')];
    runWithContext({ requestId: 'r1', actor: ANONYMOUS, operation: 'GET /spec' }, () => {
      countRequestSqlQuery();
      countRequestSqlQuery();
      countRequestGrpcCall();
    });
    expect(await count(requestSqlQueries, 'GET /spec')).toBe(sql + 2);
    expect(await count(requestGrpcCalls, 'GET /spec')).toBe(grpc + 1);
  });

  it('labels a context without an operation as unrouted', async () => {
    const before = await count(requestSqlQueries, UNNAMED_OPERATION);
    runWithContext({ requestId: 'r2' }, () => countRequestSqlQuery());
    expect(await count(requestSqlQueries, UNNAMED_OPERATION)).toBe(before + 1);
  });

  it('does not count outside a request context (background work)', async () => {
    const total = async (c: Counter<'method'>) => (await c.get()).values.reduce((s, v) => s + v.value, 0);
    const [sql, grpc] = [await total(requestSqlQueries), await total(requestGrpcCalls)];
    countRequestSqlQuery();
    countRequestGrpcCall();
    await new Promise((r) => setImmediate(r));
    expect(await total(requestSqlQueries)).toBe(sql);
    expect(await total(requestGrpcCalls)).toBe(grpc);
  });

  it('createGrpcClient counts each call made while serving a request, not one made outside', async () => {
    const client = createGrpcClient(FakeClient as never, '127.0.0.1:1', { actorSecret: 'test-secret-of-sufficient-length' }) as unknown as {
      getUser(req: object, opts?: { actor?: Actor }): Promise<unknown>;
      close(): void;
    };
    try {
      const before = await count(requestGrpcCalls, '/test.v1.Outer/Serve');
      await runWithContext({ requestId: 'r3', actor: alice, operation: '/test.v1.Outer/Serve' }, async () => {
        await client.getUser({});
        await client.getUser({});
      });
      await client.getUser({}, { actor: alice }); // background: an explicit actor, no context
      expect(await count(requestGrpcCalls, '/test.v1.Outer/Serve')).toBe(before + 2);
    } finally {
      client.close();
    }
  });
});
