// A consumer killed (SIGKILL, a separate process) between its effect's COMMIT and kafkajs' offset commit: Kafka
// redelivers the event to the next member of the group, and processed_events (recorded in the same transaction as the
// effect) makes the redelivery a duplicate with no second effect. The effect is a counter increment, so a second
// application would show as n = 2. The child is fixtures/crashing-consumer.ts running the compiled library (build
// libs/events first, as `npm test` does).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { transformFileSync } from '@swc/core';
import { projectEventsV1 } from '@glp/proto';
import { eventually } from '@glp/testing';
import type { Kafka } from 'kafkajs';
import { buildEnvelope, encodeEnvelope, ensureTopics, EventConsumer, EventTypes, onEvent, type EventEnvelope } from '../../src';
import { count, setUpHarness, type Harness } from './harness';

const SQL = `CREATE TABLE counters (event_id uuid PRIMARY KEY, n int NOT NULL, applied_by int NOT NULL, first_offset bigint NOT NULL);`;
/** Same statement as the child's handler: a second application would make n = 2. */
const INCREMENT = `INSERT INTO counters (event_id, n, applied_by, first_offset) VALUES ($1, 1, $2, $3)
  ON CONFLICT (event_id) DO UPDATE SET n = counters.n + 1, applied_by = EXCLUDED.applied_by`;
const CONSUMER_NAME = 'crash-test';

let childCode: string;
const harnesses: Harness[] = [];
const children = new Set<ReturnType<typeof spawn>>();

beforeAll(() => {
  childCode = transformFileSync(path.join(__dirname, 'fixtures/crashing-consumer.ts'), {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  }).code;
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const h of harnesses) await h.close();
});

function envelopeFor(projectId: number): EventEnvelope {
  return buildEnvelope({
    aggregateType: 'project',
    aggregateKey: `project:${projectId}`,
    payloadType: EventTypes.ProjectCreated,
    payload: projectEventsV1.ProjectCreated.fromPartial({ projectId, name: `p${projectId}`, visibility: 'private' }),
  });
}

interface ChildEnd {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the crashing consumer until it dies (or 40 s pass: then it is killed and stderr says why). */
function runCrashingChild(h: Harness, groupId: string, crashAfterCommits: number, eventsPerTransaction: number): Promise<ChildEnd> {
  const child = spawn(process.execPath, ['-e', childCode], {
    cwd: __dirname, // resolves @glp/* through the workspace's node_modules
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: h.databaseUrl,
      DB_SCHEMA: h.schema,
      KAFKA_BROKERS: h.brokers.join(','),
      TOPIC: h.topic,
      GROUP_ID: groupId,
      CONSUMER_NAME,
      CRASH_AFTER_COMMITS: String(crashAfterCommits),
      EVENTS_PER_TRANSACTION: String(eventsPerTransaction),
    },
  });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve, reject) => {
    const killer = setTimeout(() => {
      stderr += 'killed by the test after 40 s\n';
      child.kill('SIGKILL');
    }, 40000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      children.delete(child);
      resolve({ pid: child.pid!, code, signal, stderr });
    });
  });
}

/** The group's committed offset of partition 0 (-1: none). */
async function committedOffset(kafka: Kafka, groupId: string, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return Number(t.partitions.find((p) => p.partition === 0)!.offset);
  } finally {
    await admin.disconnect();
  }
}

/**
 * `events` events; the child handles them `eventsPerTransaction` to a transaction and dies after its
 * `crashAfterCommits`-th COMMIT, having applied `applied` of them.
 */
async function crashThenRestart(label: string, events: number, crashAfterCommits: number, eventsPerTransaction: number): Promise<void> {
  const applied = Math.min(events, crashAfterCommits * eventsPerTransaction);
  const h = await setUpHarness(label, SQL);
  harnesses.push(h);
  const groupId = h.name('crash-group');
  await ensureTopics(h.kafka, [h.topic], { numPartitions: 1 });
  const envelopes = Array.from({ length: events }, (_, i) => envelopeFor(i + 1));
  const producer = h.kafka.producer();
  await producer.connect();
  await producer.send({ topic: h.topic, messages: envelopes.map((e) => ({ key: 'one-partition', value: encodeEnvelope(e) })) });
  await producer.disconnect();

  // 1. The child applies crashAfterCommits events and dies right after the last COMMIT.
  const end = await runCrashingChild(h, groupId, crashAfterCommits, eventsPerTransaction);
  expect(end.stderr).toContain(`crashing after commit ${crashAfterCommits}\n`);
  expect(end).toMatchObject({ signal: 'SIGKILL', code: null });
  // The effects are durable: exactly the events of the first crashAfterCommits transactions, each once, by the child.
  const { rows: before } = await h.pool.query<{ event_id: string; n: number; applied_by: number; first_offset: string }>(
    'SELECT event_id, n, applied_by, first_offset::text FROM counters ORDER BY counters.first_offset',
  );
  expect(before).toEqual(
    envelopes.slice(0, applied).map((e, i) => ({ event_id: e.eventId, n: 1, applied_by: end.pid, first_offset: String(i) })),
  );
  expect(await count(h.pool, 'SELECT 1 FROM processed_events WHERE consumer = $1', [CONSUMER_NAME])).toBe(applied);
  // …and Kafka does not know: the offset of the last applied event was not committed (else this test proves nothing).
  const committedAtCrash = await committedOffset(h.kafka, groupId, h.topic);
  expect(committedAtCrash).toBeLessThanOrEqual(applied - 1);
  const redeliveredExpected = applied - Math.max(committedAtCrash, 0);

  // 2. The next member of the group (same group, consumer name and schema) gets them again.
  let handlerRuns = 0;
  const consumer = new EventConsumer({
    pool: h.pool,
    kafka: h.kafka,
    groupId,
    consumerName: CONSUMER_NAME,
    topics: [h.topic],
    logger: h.logger,
    fromBeginning: true,
    sessionTimeoutMs: 6000, // the dead member leaves the group when its session (6 s) expires
    heartbeatIntervalMs: 1000,
    handlers: onEvent(EventTypes.ProjectCreated, async ({ client, envelope, offset }) => {
      handlerRuns++;
      await client.query(INCREMENT, [envelope.eventId, process.pid, offset]);
    }),
  });
  try {
    await consumer.start();
    await eventually(async () => (await committedOffset(h.kafka, groupId, h.topic)) === events, 40000, 200);
  } finally {
    await consumer.stop();
  }

  // 3. Redelivered, but no second effect: every event exactly once, the rest applied by the new member.
  expect(consumer.stats).toMatchObject({
    processed: events - applied,
    duplicates: redeliveredExpected,
    failures: 0,
    deadLettered: 0,
  });
  expect(redeliveredExpected).toBeGreaterThanOrEqual(1);
  expect(handlerRuns).toBe(events - applied);
  const { rows: after } = await h.pool.query<{ event_id: string; n: number; applied_by: number }>(
    'SELECT event_id, n, applied_by FROM counters ORDER BY first_offset',
  );
  expect(after).toEqual(
    envelopes.map((e, i) => ({ event_id: e.eventId, n: 1, applied_by: i < applied ? end.pid : process.pid })),
  );
  expect(await count(h.pool, 'SELECT 1 FROM processed_events WHERE consumer = $1', [CONSUMER_NAME])).toBe(events);
  expect(await count(h.pool, 'SELECT 1 FROM counters WHERE n <> 1')).toBe(0);
  console.log(
    `consumer crash (${label}): ${events} events, ${eventsPerTransaction} per transaction, child SIGKILLed after commit ${crashAfterCommits} (${applied} applied) with committed offset ` +
      `${committedAtCrash}, ${consumer.stats.duplicates} redelivered, second effects 0`,
  );
}

it('does not apply again an event whose consumer was killed after its COMMIT and before the offset commit', async () => {
  await crashThenRestart('crash1', 1, 1, 1);
}, 60000);

it('applies each of 20 events exactly once when the consumer is killed after the 7th COMMIT', async () => {
  await crashThenRestart('crash20', 20, 7, 1);
}, 60000);

it('applies each of 20 events exactly once when the consumer is killed after the COMMIT of a transaction of 20', async () => {
  await crashThenRestart('crashbatch', 20, 1, 20);
}, 60000);
