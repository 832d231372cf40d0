// Records Kafka refuses for good (too large for the topic) must not wedge a schema's relay: a batch refused as a whole
// is split, a single record refused alone goes to "<topic>.dlq" with the reason and leaves the outbox, and the rows
// after it are published. Other refusals are still retried, never dead-lettered. appendEvent refuses an
// event beyond MAX_EVENT_BYTES in the caller's transaction.
import { ConfigResourceTypes, type Kafka, type KafkaMessage, type Producer, type ProducerBatch } from 'kafkajs';
import { projectEventsV1 } from '@glp/proto';
import { withTransaction } from '@glp/db';
import { eventsCounter } from '@glp/service-kit';
import { eventually } from '@glp/testing';
import {
  appendEvent, buildEnvelope, decodeEnvelope, DLQ_HEADERS, dlqTopicFor, encodeEnvelope, EventTypes, MAX_EVENT_BYTES, OutboxRelay, unpackPayload,
  type EventEnvelope,
} from '../../src';
import { count, setUpHarness, type Harness } from './harness';

let h: Harness;
const relays: OutboxRelay[] = [];

/** A ProjectCreated whose name makes it about `bytes` long. */
function envelopeOf(projectId: number, bytes = 0): EventEnvelope {
  return buildEnvelope({
    aggregateType: 'project',
    aggregateKey: `project:${projectId}`,
    payloadType: EventTypes.ProjectCreated,
    payload: projectEventsV1.ProjectCreated.fromPartial({ projectId, name: `p${projectId}${'x'.repeat(bytes)}` }),
  });
}

async function outbox(topic: string, envelopes: EventEnvelope[]): Promise<void> {
  for (const e of envelopes) {
    await h.pool.query('INSERT INTO outbox (topic, message_key, event_id, event_type, payload) VALUES ($1, $2, $3, $4, $5)', [
      topic, e.aggregateKey, e.eventId, e.eventType, encodeEnvelope(e),
    ]);
  }
}

async function createTopic(topic: string, configEntries: { name: string; value: string }[]): Promise<void> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1, configEntries }] });
  } finally {
    await admin.disconnect();
  }
}

async function alterTopic(topic: string, configEntries: { name: string; value: string }[]): Promise<void> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries }] });
  } finally {
    await admin.disconnect();
  }
}

/** Reads a topic from the beginning until `n` messages came (or the timeout). */
async function readMessages(topic: string, n: number, timeoutMs = 30000): Promise<KafkaMessage[]> {
  const reader = h.kafka.consumer({ groupId: h.name('reader'), maxWaitTimeInMs: 200 });
  const out: KafkaMessage[] = [];
  await reader.connect();
  try {
    await reader.subscribe({ topic, fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => void out.push(message) });
    await eventually(async () => out.length >= n, timeoutMs);
  } finally {
    await reader.disconnect();
  }
  return out;
}

const projectIdsOf = (messages: KafkaMessage[]) =>
  messages.map((m) => Number(unpackPayload(decodeEnvelope(m.value!), EventTypes.ProjectCreated).projectId));

async function counted(stage: string, topic: string): Promise<number> {
  const metric = await eventsCounter.get();
  return metric.values.find((v) => v.labels.stage === stage && v.labels.topic === topic)?.value ?? 0;
}

/**
 * h.kafka, except that its producers stamp every record `ageMs` in the past: the broker then judges a record's age
 * the same way on every attempt (a record stamped "now" may reach the broker within the same millisecond).
 */
function kafkaStampingAgo(ageMs: number): Kafka {
  const stamp = (batch: ProducerBatch): ProducerBatch => ({
    ...batch,
    topicMessages: batch.topicMessages?.map((tm) => ({
      ...tm, messages: tm.messages.map((m) => ({ ...m, timestamp: String(Date.now() - ageMs) })),
    })),
  });
  return new Proxy(h.kafka, {
    get(target, prop, receiver) {
      if (prop !== 'producer') return Reflect.get(target, prop, receiver);
      return (...args: Parameters<Kafka['producer']>): Producer => {
        const producer = target.producer(...args);
        return new Proxy(producer, {
          get(p, key, r) {
            if (key === 'sendBatch') return (batch: ProducerBatch) => p.sendBatch(stamp(batch));
            return Reflect.get(p, key, r);
          },
        });
      };
    },
  });
}

function startRelay(kafka: Kafka = h.kafka): OutboxRelay {
  const relay = new OutboxRelay({
    databaseUrl: h.databaseUrl, schema: h.schema, kafka, logger: h.logger, pollIntervalMs: 200, backoffInitialMs: 100, backoffMaxMs: 500,
  });
  relays.push(relay);
  void relay.start();
  return relay;
}

beforeAll(async () => {
  h = await setUpHarness('oversized');
});

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await h.pool.query('DELETE FROM outbox');
});

afterAll(async () => {
  await h?.close();
});

it('dead-letters a record the topic refuses as too large, with the reason, and publishes the rows after it', async () => {
  const topic = `${h.topic}.small`;
  // The topic takes records of up to 64 KiB; its DLQ takes the broker's default (1 MiB).
  await createTopic(topic, [{ name: 'max.message.bytes', value: String(64 * 1024) }]);
  const before = await counted('dead_lettered', topic);
  const first = envelopeOf(1);
  const huge = envelopeOf(2, 200 * 1024);
  const after = [envelopeOf(3), envelopeOf(4)];
  await outbox(topic, [first, huge, ...after]);

  const relay = startRelay();
  const published = await readMessages(topic, 3);
  expect(projectIdsOf(published)).toEqual([1, 3, 4]);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 0, 15000);
  expect(relay.stats).toMatchObject({ published: 3, deadLettered: 1 });
  expect((await counted('dead_lettered', topic)) - before).toBe(1);

  const [dead] = await readMessages(dlqTopicFor(topic), 1);
  expect(dead!.key?.toString()).toBe('project:2');
  expect(dead!.headers?.event_id?.toString()).toBe(huge.eventId);
  expect(dead!.headers?.event_type?.toString()).toBe(EventTypes.ProjectCreated.typeName);
  expect(dead!.headers?.[DLQ_HEADERS.originalTopic]?.toString()).toBe(topic);
  expect(dead!.headers?.[DLQ_HEADERS.error]?.toString()).toMatch(/MESSAGE_TOO_LARGE|larger than the max message size/);
  // The original bytes fit the DLQ: they are kept there.
  expect(Buffer.compare(dead!.value!, encodeEnvelope(huge))).toBe(0);
});

it('splits a batch the topic refuses as a whole and publishes every record of it, in order', async () => {
  const topic = `${h.topic}.split`;
  await createTopic(topic, [{ name: 'max.message.bytes', value: String(64 * 1024) }]);
  // Each record fits alone (20 KiB); ten of them in one record batch do not.
  const envelopes = Array.from({ length: 10 }, (_, i) => envelopeOf(100 + i, 20 * 1024));
  await outbox(topic, envelopes);

  const relay = startRelay();
  const published = await readMessages(topic, 10);
  expect(projectIdsOf(published)).toEqual(envelopes.map((_, i) => 100 + i));
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 0, 15000);
  expect(relay.stats).toMatchObject({ published: 10, deadLettered: 0 });
});

it('keeps retrying a refusal that is not about size, dead-letters nothing, and publishes once the topic takes the record', async () => {
  const topic = `${h.topic}.timestamps`;
  // Every record (stamped a minute ago) is older than the topic accepts: INVALID_TIMESTAMP, a refusal the relay must
  // not treat as final.
  await createTopic(topic, [{ name: 'message.timestamp.before.max.ms', value: '1000' }]);
  await outbox(topic, [envelopeOf(7)]);

  const relay = startRelay(kafkaStampingAgo(60_000));
  await eventually(async () => relay.stats.failures >= 2, 30000);
  expect(relay.stats).toMatchObject({ published: 0, deadLettered: 0 });
  expect(await count(h.pool, 'SELECT 1 FROM outbox')).toBe(1);

  await alterTopic(topic, [{ name: 'message.timestamp.before.max.ms', value: String(7 * 24 * 3600 * 1000) }]);
  expect(projectIdsOf(await readMessages(topic, 1))).toEqual([7]);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 0, 15000);
  expect(relay.stats.deadLettered).toBe(0);
});

it('refuses to outbox an event beyond MAX_EVENT_BYTES: the caller\'s transaction fails and nothing is written', async () => {
  const big = projectEventsV1.ProjectCreated.fromPartial({ projectId: 9, name: 'x'.repeat(MAX_EVENT_BYTES + 1) });
  const write = withTransaction(h.pool, (client) =>
    appendEvent(client, { topic: h.topic, aggregateType: 'project', aggregateKey: 'project:9', payloadType: EventTypes.ProjectCreated, payload: big }),
  );
  await expect(write).rejects.toThrow(/too large/);
  expect(await count(h.pool, 'SELECT 1 FROM outbox')).toBe(0);

  // Just under the cap passes.
  const fits = projectEventsV1.ProjectCreated.fromPartial({ projectId: 10, name: 'x'.repeat(MAX_EVENT_BYTES - 1024) });
  await withTransaction(h.pool, (client) =>
    appendEvent(client, { topic: h.topic, aggregateType: 'project', aggregateKey: 'project:10', payloadType: EventTypes.ProjectCreated, payload: fits }),
  );
  expect(await count(h.pool, 'SELECT 1 FROM outbox')).toBe(1);
});
