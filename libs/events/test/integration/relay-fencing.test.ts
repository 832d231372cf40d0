// Relay fencing: every batch runs in a transaction on the lock connection, after proving
// the lock there. A lock connection killed in the middle of the drain loses nothing, keeps
// per-key order, and republishes at most the one batch that was in flight.
import { eventually } from '@glp/testing';
import { OutboxRelay } from '../../src';
import { analyse, contiguous, fillOutbox, readTopic } from './outbox-drain';
import { count, setUpHarness, type Harness } from './harness';

const N = 3000;
const KEYS = 30;
const BATCH = 50;

let h: Harness;
const relays: OutboxRelay[] = [];

function newRelay(topic: string, lockRetryMs = 100): OutboxRelay {
  const relay = new OutboxRelay({
    databaseUrl: h.databaseUrl,
    schema: h.schema,
    kafka: h.kafka,
    logger: h.logger,
    topics: [topic],
    numPartitions: 3,
    batchSize: BATCH,
    pollIntervalMs: 100,
    lockRetryMs,
  });
  relays.push(relay);
  return relay;
}

/** Terminates the relay connection that is inside a batch's transaction (between its statements, e.g. during the Kafka send). */
async function killLeaderMidBatch(): Promise<void> {
  await eventually(async () => {
    const { rows } = await h.pool.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
       WHERE application_name = $1 AND state = 'idle in transaction'`,
      [`${h.schema}-outbox-relay`],
    );
    return rows.some((r) => r.killed);
  }, 10000, 1);
}

const outboxRows = () => count(h.pool, 'SELECT 1 FROM outbox');

beforeAll(async () => {
  h = await setUpHarness('fence');
});

afterAll(async () => {
  await Promise.all(relays.map((r) => r.stop()));
  await h?.close();
});

it('loses nothing, keeps per-key order and republishes at most one batch when the lock connection is killed mid-batch', async () => {
  const topic = `${h.topic}.kill`;
  await fillOutbox(h.pool, topic, 1, N, KEYS);
  const relay = newRelay(topic);
  await relay.start();

  await eventually(async () => relay.stats.published >= N / 3, 30000, 2);
  await killLeaderMidBatch();
  expect(await outboxRows()).toBeGreaterThan(0);

  await eventually(async () => (await outboxRows()) === 0, 30000);
  await relay.stop();
  expect(relay.stats).toMatchObject({ leaderships: 2, lockLost: 1, published: N });

  const report = analyse(await readTopic(h.kafka, topic, h.name('read-kill')), N);
  expect(report.missing).toEqual([]);
  expect(report.outOfOrderKeys).toEqual([]);
  expect(report.duplicates.length).toBeLessThanOrEqual(BATCH);
  expect(contiguous(report.duplicates)).toBe(true);
});

it('runs two relays on one schema: never both leader, every event published, handing over on a kill and a stop', async () => {
  const topic = `${h.topic}.two`;
  await fillOutbox(h.pool, topic, 1, N, KEYS);
  const a = newRelay(topic);
  const b = newRelay(topic);
  let samples = 0;
  let bothLeader = 0;
  const sampler = setInterval(() => {
    samples++;
    if (a.stats.leader && b.stats.leader) bothLeader++;
  }, 1);
  try {
    await a.start();
    await b.start();
    const published = () => a.stats.published + b.stats.published;

    await eventually(async () => published() >= N / 4, 30000, 2);
    await killLeaderMidBatch();
    await eventually(async () => a.stats.leaderships + b.stats.leaderships >= 2 && published() >= N / 2, 30000, 2);
    // A graceful stop of whoever leads now: the other one takes over.
    const leader = a.stats.leader ? a : b;
    await leader.stop();
    await eventually(async () => (await outboxRows()) === 0, 30000);
  } finally {
    clearInterval(sampler);
  }
  await a.stop();
  await b.stop();

  expect(samples).toBeGreaterThan(100);
  expect(bothLeader).toBe(0);
  expect(a.stats.leaderships + b.stats.leaderships).toBeGreaterThanOrEqual(3);
  expect(a.stats.published).toBeGreaterThan(0);
  expect(b.stats.published).toBeGreaterThan(0);
  // Each row is deleted (committed) by exactly one batch of one relay.
  expect(a.stats.published + b.stats.published).toBe(N);

  const report = analyse(await readTopic(h.kafka, topic, h.name('read-two')), N);
  expect(report.missing).toEqual([]);
  expect(report.outOfOrderKeys).toEqual([]);
  expect(report.duplicates.length).toBeLessThanOrEqual(BATCH);
  expect(contiguous(report.duplicates)).toBe(true);
});
