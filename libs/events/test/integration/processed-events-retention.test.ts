// processed_events (the consumers' idempotence records) does not grow forever: a running EventConsumer deletes, in
// batches, the records older than its retention (longer than Kafka keeps the messages, so a duplicate can still only
// meet a record that is there), and keeps the recent ones, which still turn a redelivery into a no-op.
import type { Producer } from 'kafkajs';
import { projectEventsV1 } from '@glp/proto';
import { eventually } from '@glp/testing';
import { buildEnvelope, encodeEnvelope, ensureTopics, EventConsumer, EventTypes, onEvent } from '../../src';
import { count, setUpHarness, type Harness } from './harness';

const SQL = `CREATE TABLE effects (event_id uuid PRIMARY KEY, project_id bigint NOT NULL);`;
const DAY_MS = 24 * 3600 * 1000;

let h: Harness;
let producer: Producer;
let consumer: EventConsumer | undefined;

beforeAll(async () => {
  h = await setUpHarness('retention', SQL);
  producer = h.kafka.producer();
  await producer.connect();
});

afterAll(async () => {
  await consumer?.stop();
  await producer?.disconnect();
  await h?.close();
});

it('has an index on processed_at, for the retention\'s range deletes', async () => {
  const { rows } = await h.pool.query<{ indexdef: string }>(
    `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'processed_events'`, [h.schema],
  );
  expect(rows.some((r) => /\(processed_at\)/.test(r.indexdef))).toBe(true);
});

it('deletes records older than the retention in batches, keeps the recent ones, and a redelivered recent event is still a duplicate', async () => {
  const name = 'retention-test';
  // 250 records from 30 days ago (3 batches of 100), 5 from 2 days ago, 1 just now for an event we redeliver below.
  await h.pool.query(
    `INSERT INTO processed_events (consumer, event_id, processed_at)
     SELECT $1, gen_random_uuid(), now() - interval '30 days' FROM generate_series(1, 250)`, [name],
  );
  await h.pool.query(
    `INSERT INTO processed_events (consumer, event_id, processed_at)
     SELECT $1, gen_random_uuid(), now() - interval '2 days' FROM generate_series(1, 5)`, [name],
  );
  const recent = buildEnvelope({
    aggregateType: 'project', aggregateKey: 'project:1', payloadType: EventTypes.ProjectCreated,
    payload: projectEventsV1.ProjectCreated.fromPartial({ projectId: 1, name: 'p1' }),
  });
  await h.pool.query('INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2)', [name, recent.eventId]);

  await ensureTopics(h.kafka, [h.topic]);
  consumer = new EventConsumer({
    pool: h.pool, kafka: h.kafka, groupId: h.name('retention'), consumerName: name, topics: [h.topic], logger: h.logger, fromBeginning: true,
    processedEventsRetentionMs: 7 * DAY_MS, processedEventsPurgeIntervalMs: 200, processedEventsPurgeBatch: 100,
    handlers: onEvent(EventTypes.ProjectCreated, async ({ client, envelope, payload }) => {
      await client.query('INSERT INTO effects (event_id, project_id) VALUES ($1, $2)', [envelope.eventId, payload.projectId]);
    }),
  });
  await consumer.start();

  await eventually(async () => (await count(h.pool, `SELECT 1 FROM processed_events WHERE processed_at < now() - interval '7 days'`)) === 0, 15000);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events')).toBe(6);

  // The redelivered event is recognised; a new one is processed and recorded.
  const fresh = buildEnvelope({
    aggregateType: 'project', aggregateKey: 'project:2', payloadType: EventTypes.ProjectCreated,
    payload: projectEventsV1.ProjectCreated.fromPartial({ projectId: 2, name: 'p2' }),
  });
  await producer.send({ topic: h.topic, messages: [recent, fresh].map((e) => ({ key: e.aggregateKey, value: encodeEnvelope(e) })) });
  await eventually(async () => consumer!.stats.processed === 1 && consumer!.stats.duplicates === 1, 30000);
  expect(await count(h.pool, 'SELECT 1 FROM effects')).toBe(1);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events')).toBe(7);
});
