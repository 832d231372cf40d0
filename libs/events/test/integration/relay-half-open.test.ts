// A half-open lock connection (the network drops its packets; neither end is told) must
// neither stall the outbox nor let a cut-off leader keep publishing: the relay's
// client-side query timeout gives up on it, the server's idle_in_transaction_session_timeout
// (or an operator's pg_terminate_backend) ends the session and releases the lock, and the
// next lock holder republishes the one batch that was in flight.
import { eventually, TcpProxy } from '@glp/testing';
import { OutboxRelay, type Kafka } from '../../src';
import { analyse, contiguous, fillOutbox, readTopic, withAfterSend } from './outbox-drain';
import { count, setUpHarness, type Harness } from './harness';

const BATCH = 50;
const KEYS = 10;
/** Short lock-connection timeouts so that the test takes seconds. */
const TIMEOUTS = { statementTimeoutMs: 1000, queryTimeoutMs: 1500, sendTimeoutMs: 1000, idleInTransactionTimeoutMs: 2000 };

let h: Harness;
let proxy: TcpProxy;
const relays: OutboxRelay[] = [];

function newRelay(topic: string, databaseUrl: string, kafka: Kafka): OutboxRelay {
  const relay = new OutboxRelay({
    databaseUrl,
    schema: h.schema,
    kafka,
    logger: h.logger,
    topics: [topic],
    batchSize: BATCH,
    pollIntervalMs: 100,
    lockRetryMs: 100,
    ...TIMEOUTS,
  });
  relays.push(relay);
  return relay;
}

const outboxRows = () => count(h.pool, 'SELECT 1 FROM outbox');

beforeAll(async () => {
  h = await setUpHarness('halfopen');
  const pg = new URL(h.databaseUrl);
  proxy = await TcpProxy.start(pg.hostname, Number(pg.port || 5432));
});

afterAll(async () => {
  await Promise.all(relays.map((r) => r.stop()));
  await proxy?.close();
  await h?.close();
});

it('gives up on a half-open lock connection, re-acquires once the server ends the session, and keeps publishing', async () => {
  const topic = `${h.topic}.single`;
  const N = 1000;
  let frozen = 0;
  // Right after Kafka acknowledged the 5th batch, before its DELETE: that batch is in Kafka but stays in the outbox.
  const kafka = withAfterSend(h.kafka, async (n) => {
    if (n === 5) frozen = proxy.freeze();
  });
  await fillOutbox(h.pool, topic, 1, N, KEYS);
  const relay = newRelay(topic, proxy.url(h.databaseUrl), kafka);
  await relay.start();

  await eventually(async () => (await outboxRows()) === 0, 30000);
  expect(frozen).toBe(1);
  expect(relay.stats).toMatchObject({ lockLost: 1, leaderships: 2, published: N });

  // Still the leader, and still publishing: new events go out too.
  await fillOutbox(h.pool, topic, N + 1, N + 100, KEYS);
  await eventually(async () => (await outboxRows()) === 0, 10000);
  await relay.stop();

  const report = analyse(await readTopic(h.kafka, topic, h.name('read-single')), N + 100);
  expect(report.missing).toEqual([]);
  expect(report.outOfOrderKeys).toEqual([]);
  // Exactly the batch that was acknowledged but never committed.
  expect(report.duplicates).toEqual(Array.from({ length: BATCH }, (_, i) => 4 * BATCH + 1 + i));
});

it('a leader cut off by a half-open connection publishes nothing more once a standby has the lock', async () => {
  const topic = `${h.topic}.split`;
  const N = 1000;
  let terminated = false;
  // At A's 5th acknowledged batch: A's connection goes half-open and an operator (or the
  // server's keepalive) ends A's session, so B gets the lock while A still believes it leads.
  const kafka = withAfterSend(h.kafka, async (n) => {
    if (n !== 5) return;
    proxy.freeze();
    const { rows } = await h.pool.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
       WHERE application_name = $1 AND state = 'idle in transaction'`,
      [`${h.schema}-outbox-relay`],
    );
    terminated = rows.length === 1 && rows[0].killed;
  });
  await fillOutbox(h.pool, topic, 1, N, KEYS);
  const a = newRelay(topic, proxy.url(h.databaseUrl), kafka);
  await a.start();
  await eventually(async () => a.stats.leader, 10000);
  const b = newRelay(topic, h.databaseUrl, h.kafka);
  await b.start();

  await eventually(async () => (await outboxRows()) === 0, 30000);
  // A's query timeout gives up on the dead connection; it steps down to standby.
  await eventually(async () => a.stats.lockLost === 1 && !a.stats.leader, 10000);
  await Promise.all([a.stop(), b.stop()]);
  expect(terminated).toBe(true);
  // A committed its first 4 batches only; B published the rest, starting with A's unfinished batch.
  expect(a.stats.published).toBe(4 * BATCH);
  expect(a.stats.leaderships).toBe(1);
  expect(b.stats.published).toBe(N - 4 * BATCH);

  const report = analyse(await readTopic(h.kafka, topic, h.name('read-split')), N);
  expect(report.missing).toEqual([]);
  expect(report.outOfOrderKeys).toEqual([]);
  expect(report.duplicates).toEqual(Array.from({ length: BATCH }, (_, i) => 4 * BATCH + 1 + i));
  expect(contiguous(report.duplicates)).toBe(true);
});
