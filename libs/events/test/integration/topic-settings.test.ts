// Topics are created with the configured replication factor and min.insync.replicas,
// by ensureTopics and by the relay and the consumer (event topics and DLQ topics).
import { ConfigResourceTypes } from 'kafkajs';
import { eventually } from '@glp/testing';
import { dlqTopicFor, ensureTopics, EventConsumer, OutboxRelay, type TopicSettings } from '../../src';
import { setUpHarness, type Harness } from './harness';

let h: Harness;

async function describeTopics(topics: string[]): Promise<Map<string, { minInsync?: string; replicas: number[]; partitions: number }>> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const configs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['min.insync.replicas'] })),
    });
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
    return new Map(
      topics.map((t) => {
        const config = configs.resources.find((r) => r.resourceName === t);
        const meta = metadata.find((m) => m.name === t)!;
        return [
          t,
          {
            minInsync: config?.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue,
            replicas: meta.partitions.map((p) => p.replicas.length),
            partitions: meta.partitions.length,
          },
        ];
      }),
    );
  } finally {
    await admin.disconnect();
  }
}

async function topicExists(topic: string): Promise<boolean> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    return (await admin.listTopics()).includes(topic);
  } finally {
    await admin.disconnect();
  }
}

const SETTINGS: TopicSettings = { replicationFactor: 1, minInsyncReplicas: 2 };

beforeAll(async () => {
  h = await setUpHarness('topics');
});

afterAll(async () => {
  await h?.close();
});

it('ensureTopics passes the replication factor and min.insync.replicas to the created topic', async () => {
  const topic = `${h.topic}.direct`;
  await ensureTopics(h.kafka, [topic], { numPartitions: 2, ...SETTINGS });
  expect((await describeTopics([topic])).get(topic)).toEqual({ minInsync: '2', replicas: [1, 1], partitions: 2 });
});

it('rejects a replication factor or min.insync.replicas below 1', async () => {
  await expect(ensureTopics(h.kafka, [`${h.topic}.bad`], { replicationFactor: 0 })).rejects.toThrow(/replicationFactor/);
  await expect(ensureTopics(h.kafka, [`${h.topic}.bad`], { minInsyncReplicas: 0 })).rejects.toThrow(/minInsyncReplicas/);
  expect(await topicExists(`${h.topic}.bad`)).toBe(false);
});

it('the consumer creates its topics and their DLQ topics with the settings', async () => {
  const topic = `${h.topic}.consumed`;
  const consumer = new EventConsumer({
    pool: h.pool,
    kafka: h.kafka,
    groupId: h.name('topics'),
    consumerName: 'topic-settings-test',
    topics: [topic],
    logger: h.logger,
    handlers: {},
    joinTimeoutMs: 0,
    ...SETTINGS,
  });
  await consumer.start();
  await consumer.stop();
  const described = await describeTopics([topic, dlqTopicFor(topic)]);
  expect(described.get(topic)).toMatchObject({ minInsync: '2', replicas: [1] });
  expect(described.get(dlqTopicFor(topic))).toMatchObject({ minInsync: '2', replicas: [1] });
});

it('the relay creates its topics with the settings', async () => {
  const topic = `${h.topic}.relayed`;
  const relay = new OutboxRelay({
    databaseUrl: h.databaseUrl,
    schema: h.schema,
    kafka: h.kafka,
    logger: h.logger,
    topics: [topic],
    pollIntervalMs: 100,
    ...SETTINGS,
  });
  await relay.start();
  try {
    await eventually(() => topicExists(topic), 15000);
  } finally {
    await relay.stop();
  }
  expect((await describeTopics([topic])).get(topic)).toMatchObject({ minInsync: '2', replicas: [1] });
});
