// Messages that cannot be decoded are not skipped: they go to "<topic>.dlq" with their
// original key and bytes and the reason, before the consumer moves past them; while the
// DLQ cannot take them, the consumer retries and does not move on.
import { ConfigResourceTypes, type KafkaMessage, type Producer } from 'kafkajs';
import { projectEventsV1 } from '@glp/proto';
import { eventsCounter } from '@glp/service-kit';
import { eventually } from '@glp/testing';
import {
  buildEnvelope,
  DLQ_HEADERS,
  dlqTopicFor,
  encodeEnvelope,
  ensureTopics,
  EventConsumer,
  EventTypes,
  onEvent,
  type EventEnvelope,
} from '../../src';
import { count, setUpHarness, type Harness } from './harness';

const SQL = `CREATE TABLE effects (event_id uuid PRIMARY KEY, project_id bigint NOT NULL);`;

let h: Harness;
let producer: Producer;
const consumers: EventConsumer[] = [];

function envelopeFor(projectId: number): EventEnvelope {
  return buildEnvelope({
    aggregateType: 'project',
    aggregateKey: `project:${projectId}`,
    payloadType: EventTypes.ProjectCreated,
    payload: projectEventsV1.ProjectCreated.fromPartial({ projectId, name: `p${projectId}` }),
  });
}

async function startConsumer(topic: string, groupId: string, label: string): Promise<EventConsumer> {
  const consumer = new EventConsumer({
    pool: h.pool,
    kafka: h.kafka,
    groupId,
    consumerName: `dlq-test-${label}`,
    topics: [topic],
    logger: h.logger,
    fromBeginning: true,
    retryInitialMs: 100,
    retryMaxMs: 300,
    handlers: onEvent(EventTypes.ProjectCreated, async ({ client, envelope, payload }) => {
      await client.query('INSERT INTO effects (event_id, project_id) VALUES ($1, $2)', [envelope.eventId, payload.projectId]);
    }),
  });
  consumers.push(consumer);
  await consumer.start();
  return consumer;
}

/** Produces one message; returns its offset. */
async function produce(topic: string, key: string, value: Buffer, headers: Record<string, string> = {}): Promise<string> {
  const [meta] = await producer.send({ topic, messages: [{ key, value, headers }] });
  return meta.baseOffset!;
}

const applied = (env: EventEnvelope) => count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [env.eventId]);

/** Reads `n` messages of a topic from the beginning. */
async function readMessages(topic: string, n: number): Promise<KafkaMessage[]> {
  const reader = h.kafka.consumer({ groupId: h.name('dlq-reader'), maxWaitTimeInMs: 200 });
  const out: KafkaMessage[] = [];
  await reader.connect();
  try {
    await reader.subscribe({ topic, fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => void out.push(message) });
    await eventually(async () => out.length >= n, 30000);
  } finally {
    await reader.disconnect();
  }
  return out;
}

async function deadLetteredCount(topic: string): Promise<number> {
  const metric = await eventsCounter.get();
  return metric.values.find((v) => v.labels.stage === 'dead_lettered' && v.labels.topic === topic)?.value ?? 0;
}

/** Creates (create=true) or reconfigures a topic with the given max.message.bytes. */
async function setDlqMaxMessageBytes(topic: string, bytes: number, create: boolean): Promise<void> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const configEntries = [{ name: 'max.message.bytes', value: String(bytes) }];
    if (create) await admin.createTopics({ waitForLeaders: true, topics: [{ topic, configEntries }] });
    else await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries }] });
  } finally {
    await admin.disconnect();
  }
}

async function committedOffset(groupId: string, topic: string): Promise<number> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return Number(t.partitions[0].offset);
  } finally {
    await admin.disconnect();
  }
}

const header = (m: KafkaMessage, name: string) => m.headers?.[name]?.toString();

beforeAll(async () => {
  h = await setUpHarness('dlq', SQL);
  producer = h.kafka.producer();
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await Promise.all(consumers.map((c) => c.stop()));
  await h?.close();
});

it('produces undecodable messages to <topic>.dlq with their original bytes and the reason, then goes on', async () => {
  const topic = `${h.topic}.bad`;
  const groupId = h.name('bad');
  const consumer = await startConsumer(topic, groupId, 'bad');
  const metricBefore = await deadLetteredCount(topic);

  const garbage = Buffer.from([0x64, 0x65, 0x66, 0xff, 0xff, 0x00, 0x01, 0x80]);
  // A valid envelope whose ProjectCreated payload is cut short.
  const truncated = envelopeFor(99);
  truncated.payload!.value = Buffer.from([0x0a, 0x05, 0x41]);
  const bad = [
    { key: 'junk', value: garbage, error: /./ },
    { key: 'empty', value: Buffer.alloc(0), error: /empty message/ },
    { key: truncated.aggregateKey, value: encodeEnvelope(truncated), error: /premature EOF|index out of range/ },
  ];
  const offsets: string[] = [];
  for (const b of bad) offsets.push(await produce(topic, b.key, b.value, { trace: `t-${b.key}` }));
  const next = envelopeFor(1);
  await produce(topic, next.aggregateKey, encodeEnvelope(next));

  await eventually(async () => (await applied(next)) === 1, 30000);
  expect(consumer.stats).toMatchObject({ processed: 1, deadLettered: 3, deadLetterFailures: 0 });
  expect(await count(h.pool, 'SELECT 1 FROM processed_events')).toBe(1);
  expect((await deadLetteredCount(topic)) - metricBefore).toBe(3);

  const dlq = await readMessages(dlqTopicFor(topic), 3);
  expect(dlq).toHaveLength(3);
  dlq.forEach((m, i) => {
    expect(m.key?.toString()).toBe(bad[i].key);
    expect(Buffer.compare(m.value ?? Buffer.alloc(0), bad[i].value)).toBe(0);
    expect(header(m, DLQ_HEADERS.error)).toMatch(bad[i].error);
    expect(header(m, DLQ_HEADERS.originalTopic)).toBe(topic);
    expect(header(m, DLQ_HEADERS.originalPartition)).toBe('0');
    expect(header(m, DLQ_HEADERS.originalOffset)).toBe(offsets[i]);
    expect(header(m, DLQ_HEADERS.consumerGroup)).toBe(groupId);
    expect(header(m, DLQ_HEADERS.consumer)).toBe('dlq-test-bad');
    expect(header(m, 'trace')).toBe(`t-${bad[i].key}`);
  });
});

it('retries while the DLQ rejects the message and does not move past it meanwhile', async () => {
  const topic = `${h.topic}.blocked`;
  const dlqTopic = dlqTopicFor(topic);
  const groupId = h.name('blocked');
  // A DLQ topic that takes no record of this size: every write to it fails (MESSAGE_TOO_LARGE).
  await ensureTopics(h.kafka, [topic]);
  await setDlqMaxMessageBytes(dlqTopic, 16, true);
  const consumer = await startConsumer(topic, groupId, 'blocked');

  const garbage = Buffer.from('not an envelope \xff\xfe');
  const badOffset = await produce(topic, 'junk', garbage);
  const next = envelopeFor(2);
  await produce(topic, next.aggregateKey, encodeEnvelope(next));

  await eventually(async () => consumer.stats.deadLetterFailures >= 2, 30000);
  expect(consumer.stats.deadLettered).toBe(0);
  expect(await applied(next)).toBe(0);
  // The group's committed offset has not moved past the message (-1: nothing committed yet).
  expect(await committedOffset(groupId, topic)).toBeLessThanOrEqual(Number(badOffset));

  // The DLQ becomes writable: the message is dead-lettered, then the next event is processed.
  await setDlqMaxMessageBytes(dlqTopic, 1048588, false);
  await eventually(async () => (await applied(next)) === 1, 30000);
  expect(consumer.stats.deadLettered).toBe(1);
  const [dead] = await readMessages(dlqTopic, 1);
  expect(Buffer.compare(dead.value!, garbage)).toBe(0);
  expect(header(dead, DLQ_HEADERS.originalOffset)).toBe(badOffset);
});
