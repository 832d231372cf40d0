// The same envelope delivered twice (a relay that crashed after producing but before
// deleting, a producer retry…) is applied once.
import { projectEventsV1 } from '@glp/proto';
import { eventually } from '@glp/testing';
import type { Producer } from 'kafkajs';
import { buildEnvelope, encodeEnvelope, ensureTopics, EventConsumer, EventTypes, onEvent } from '../../src';
import { count, setUpHarness, type Harness } from './harness';

const SQL = `CREATE TABLE effects (id bigserial PRIMARY KEY, event_id uuid NOT NULL, project_id bigint NOT NULL);`;

let h: Harness;
let consumer: EventConsumer;
let producer: Producer;

function envelopeFor(projectId: number) {
  return buildEnvelope({
    aggregateType: 'project',
    aggregateKey: `project:${projectId}`,
    payloadType: EventTypes.ProjectCreated,
    payload: projectEventsV1.ProjectCreated.fromPartial({ projectId, name: `p${projectId}`, visibility: 'private' }),
  });
}

beforeAll(async () => {
  h = await setUpHarness('dup', SQL);
  await ensureTopics(h.kafka, [h.topic]);
  producer = h.kafka.producer();
  await producer.connect();
  consumer = new EventConsumer({
    pool: h.pool,
    kafka: h.kafka,
    groupId: h.name('dup-group'),
    consumerName: 'duplicate-test',
    topics: [h.topic],
    logger: h.logger,
    fromBeginning: true,
    handlers: onEvent(EventTypes.ProjectCreated, async ({ client, envelope, payload }) => {
      await client.query('INSERT INTO effects (event_id, project_id) VALUES ($1, $2)', [envelope.eventId, payload.projectId]);
    }),
  });
  await consumer.start();
});

afterAll(async () => {
  await producer?.disconnect();
  await consumer?.stop();
  await h?.close();
});

it('applies an envelope delivered twice exactly once', async () => {
  const env = envelopeFor(10);
  const bytes = encodeEnvelope(env);
  const message = { key: env.aggregateKey, value: bytes, headers: { event_type: env.eventType, event_id: env.eventId } };
  // Two separate produce requests: two distinct Kafka records with the same event id.
  await producer.send({ topic: h.topic, messages: [message] });
  await producer.send({ topic: h.topic, messages: [message] });
  // Then an unrelated event: once it is applied, both copies have been seen (one partition, in order).
  const marker = envelopeFor(11);
  await producer.send({ topic: h.topic, messages: [{ key: marker.aggregateKey, value: encodeEnvelope(marker) }] });

  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [marker.eventId])) === 1, 30000);
  expect(await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [env.eventId])).toBe(1);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events WHERE event_id = $1', [env.eventId])).toBe(1);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events')).toBe(2);
  expect(consumer.stats).toMatchObject({ processed: 2, duplicates: 1, deadLettered: 0 });
});

it('dead-letters a message that is not an event envelope without blocking the partition', async () => {
  await producer.send({ topic: h.topic, messages: [{ key: 'junk', value: Buffer.from('definitely not protobuf \xff\xff') }] });
  const marker = envelopeFor(12);
  await producer.send({ topic: h.topic, messages: [{ key: marker.aggregateKey, value: encodeEnvelope(marker) }] });
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [marker.eventId])) === 1, 30000);
  expect(consumer.stats.deadLettered).toBe(1);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events')).toBe(3);
});
