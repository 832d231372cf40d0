import type { ClientBase } from 'pg';
import { requestSqlQueries, runWithContext } from '@glp/service-kit';
import { countQueries } from './query-counter';

async function count(method: string): Promise<number> {
  return (await requestSqlQueries.get()).values.find((v) => v.labels.method === method)?.value ?? 0;
}

/** A pg client stand-in: query answers at once and remembers what it was sent. */
function fakeClient() {
  const sent: unknown[][] = [];
  const client = { query: (...args: unknown[]) => (sent.push(args), Promise.resolve({ rows: [] })) };
  return { client: client as unknown as ClientBase, sent };
}

describe('countQueries', () => {
  it('counts each query sent inside a request context, under its operation, and passes the query through', async () => {
    const { client, sent } = fakeClient();
    countQueries(client);
    const before = await count('/test.v1.Things/ListThings');
    await runWithContext({ requestId: 'r1', operation: '/test.v1.Things/ListThings' }, async () => {
      await client.query('SELECT 1');
      await client.query('SELECT $1::int', [2]);
    });
    expect(await count('/test.v1.Things/ListThings')).toBe(before + 2);
    expect(sent).toEqual([['SELECT 1'], ['SELECT $1::int', [2]]]);
  });

  it('does not count queries outside a request context (relays, consumers, workers)', async () => {
    const { client } = fakeClient();
    countQueries(client);
    const total = async () => (await requestSqlQueries.get()).values.reduce((s, v) => s + v.value, 0);
    const before = await total();
    await client.query('SELECT 1');
    expect(await total()).toBe(before);
  });

  it('wraps a client once, however often it is applied', async () => {
    const { client } = fakeClient();
    countQueries(countQueries(client));
    const before = await count('op-once');
    await runWithContext({ requestId: 'r2', operation: 'op-once' }, () => client.query('SELECT 1'));
    expect(await count('op-once')).toBe(before + 1);
  });
});
