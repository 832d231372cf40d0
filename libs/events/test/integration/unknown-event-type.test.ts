// An event type without a handler is skipped WITHOUT being recorded in processed_events,
// so a consumer that later gains a handler for it (same consumerName, offsets reset or a
// new group reading from the beginning) processes it.
import { projectEventsV1 } from '@glp/proto';
import { eventually } from '@glp/testing';
import type { Producer } from 'kafkajs';
import {
  buildEnvelope,
  encodeEnvelope,
  ensureTopics,
  EventConsumer,
  EventTypes,
  onEvent,
  payloadType,
  type EventContext,
  type EventEnvelope,
  type EventHandlers,
  type PayloadType,
} from '../../src';
import { count, setUpHarness, type Harness } from './harness';

const SQL = `CREATE TABLE effects (event_id uuid PRIMARY KEY, kind text NOT NULL);`;
const CONSUMER_NAME = 'late-handler-test';
// A type the first consumer has no handler for (reuses the ProjectCreated codec).
const ProjectArchived = payloadType('gitlab.events.v1.ProjectArchived', projectEventsV1.ProjectCreated);

let h: Harness;
let producer: Producer;
const consumers: EventConsumer[] = [];

function envelope(type: PayloadType<projectEventsV1.ProjectCreated>, projectId: number): EventEnvelope {
  return buildEnvelope({
    aggregateType: 'project',
    aggregateKey: `project:${projectId}`,
    payloadType: type,
    payload: projectEventsV1.ProjectCreated.fromPartial({ projectId }),
  });
}

function recordAs(kind: string): (ctx: EventContext) => Promise<void> {
  return async ({ client, envelope: env }) => {
    await client.query('INSERT INTO effects (event_id, kind) VALUES ($1, $2)', [env.eventId, kind]);
  };
}

async function startConsumer(handlers: EventHandlers): Promise<EventConsumer> {
  const consumer = new EventConsumer({
    pool: h.pool,
    kafka: h.kafka,
    groupId: h.name('late'),
    consumerName: CONSUMER_NAME,
    topics: [h.topic],
    logger: h.logger,
    fromBeginning: true,
    handlers,
  });
  consumers.push(consumer);
  await consumer.start();
  return consumer;
}

const effects = (env: EventEnvelope) => count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [env.eventId]);
const recorded = (env: EventEnvelope) => count(h.pool, 'SELECT 1 FROM processed_events WHERE event_id = $1', [env.eventId]);

beforeAll(async () => {
  h = await setUpHarness('late', SQL);
  await ensureTopics(h.kafka, [h.topic]);
  producer = h.kafka.producer();
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await Promise.all(consumers.map((c) => c.stop()));
  await h?.close();
});

it('does not record an event without a handler, so a handler added later processes it', async () => {
  const archived = envelope(ProjectArchived, 1);
  const created = envelope(EventTypes.ProjectCreated, 2);
  for (const env of [archived, created]) {
    await producer.send({ topic: h.topic, messages: [{ key: env.aggregateKey, value: encodeEnvelope(env) }] });
  }

  const first = await startConsumer(onEvent(EventTypes.ProjectCreated, recordAs('created')));
  await eventually(async () => (await effects(created)) === 1, 30000);
  expect(first.stats).toMatchObject({ processed: 1, skipped: 1 });
  expect(await recorded(archived)).toBe(0);
  await first.stop();

  // The release with a ProjectArchived handler: same consumerName, a new group from the beginning.
  const second = await startConsumer({
    ...onEvent(EventTypes.ProjectCreated, recordAs('created')),
    ...onEvent(ProjectArchived, recordAs('archived')),
  });
  await eventually(async () => (await effects(archived)) === 1, 30000);
  await eventually(async () => second.stats.duplicates === 1, 10000);
  expect(second.stats).toMatchObject({ processed: 1, duplicates: 1, skipped: 0 });
  expect(await recorded(archived)).toBe(1);
  expect(await count(h.pool, "SELECT 1 FROM effects WHERE kind = 'archived'")).toBe(1);
  expect(await effects(created)).toBe(1);
});
