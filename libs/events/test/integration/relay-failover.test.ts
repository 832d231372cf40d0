// One active relay per schema across replicas: a standby takes over when the leader stops.
import { withTransaction } from '@glp/db';
import { projectEventsV1 } from '@glp/proto';
import { eventually } from '@glp/testing';
import { appendEvent, EventTypes, OutboxRelay, type EventEnvelope } from '../../src';
import { count, setUpHarness, type Harness } from './harness';

let h: Harness;
const relays: OutboxRelay[] = [];

function newRelay(): OutboxRelay {
  const r = new OutboxRelay({
    databaseUrl: h.databaseUrl,
    schema: h.schema,
    kafka: h.kafka,
    logger: h.logger,
    lockRetryMs: 200,
    topics: [h.topic],
  });
  relays.push(r);
  return r;
}

async function append(projectId: number): Promise<EventEnvelope> {
  return withTransaction(h.pool, (client) =>
    appendEvent(client, {
      topic: h.topic,
      aggregateType: 'project',
      aggregateKey: `project:${projectId}`,
      payloadType: EventTypes.ProjectCreated,
      payload: projectEventsV1.ProjectCreated.fromPartial({ projectId }),
    }),
  );
}

beforeAll(async () => {
  h = await setUpHarness('fo');
});

afterAll(async () => {
  await Promise.all(relays.map((r) => r.stop()));
  await h?.close();
});

it('keeps exactly one relay active and fails over to the standby', async () => {
  const a = newRelay();
  const b = newRelay();
  await a.start();
  await eventually(async () => a.stats.leader, 10000);
  await b.start();
  // b keeps trying (every 200 ms) but never gets the lock while a holds it.
  await new Promise((r) => setTimeout(r, 1000));
  expect(b.stats.leader).toBe(false);
  expect(b.stats.leaderships).toBe(0);

  await append(1);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 0, 20000);
  expect(a.stats.published).toBe(1);
  expect(b.stats.published).toBe(0);

  await a.stop();
  await eventually(async () => b.stats.leader, 10000);
  await append(2);
  await append(3);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 0, 20000);
  expect(b.stats.published).toBe(2);
  expect(a.stats.published).toBe(1);
});

it('re-acquires the lock when its dedicated connection is killed', async () => {
  const b = relays[1];
  const before = b.stats.leaderships;
  await h.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
    `${h.schema}-outbox-relay`,
  ]);
  await eventually(async () => b.stats.leaderships > before && b.stats.leader, 15000);
  await append(4);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 0, 20000);
  expect(b.stats.published).toBe(3);
});
