// The relay with a retention window: published rows stay (marked), are republished once marked unpublished again (what a
// restore does), and the leader purges those past the window; the relay's throughput with and without retention.
import { eventually } from '@glp/testing';
import { OutboxRelay } from '../../src';
import { count, setUpHarness, type Harness } from './harness';
import { fillOutbox, readTopic } from './outbox-drain';

let h: Harness;
let relay: OutboxRelay | undefined;

beforeAll(async () => {
  h = await setUpHarness('retain');
});

afterEach(async () => {
  await relay?.stop();
  relay = undefined;
});

afterAll(async () => {
  await h.close();
});

const unpublished = () => count(h.pool, 'SELECT 1 FROM outbox WHERE published_at IS NULL');

it('keeps published rows marked, republishes rows marked unpublished again, and purges rows past the retention', async () => {
  relay = new OutboxRelay({ databaseUrl: h.databaseUrl, schema: h.schema, kafka: h.kafka, logger: h.logger, topics: [h.topic], retentionMs: 3600_000, purgeIntervalMs: 200 });
  await relay.start();
  await fillOutbox(h.pool, h.topic, 1, 50, 5);
  await eventually(async () => (await unpublished()) === 0, 20_000);
  expect(await count(h.pool, 'SELECT 1 FROM outbox WHERE published_at IS NOT NULL')).toBe(50);
  expect((await readTopic(h.kafka, h.topic, h.name('read1'))).length).toBe(50);

  // A restore marks the retained rows unpublished: each is published again, in id order.
  await h.pool.query('UPDATE outbox SET published_at = NULL');
  relay.poke();
  await eventually(async () => (await unpublished()) === 0, 20_000);
  const again = await readTopic(h.kafka, h.topic, h.name('read2'));
  expect(again.length).toBe(100);
  expect(again.slice(50).filter((d) => d.key === 'project:1').map((d) => d.seq)).toEqual([1, 6, 11, 16, 21, 26, 31, 36, 41, 46]);

  // Rows published longer ago than the retention go; the others stay.
  await h.pool.query(`UPDATE outbox SET published_at = now() - interval '2 hours' WHERE id IN (SELECT id FROM outbox ORDER BY id LIMIT 20)`);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 30, 10_000);
  expect(relay.stats.purged).toBe(20);
});

it('publishes as fast with retention as without (marking instead of deleting)', async () => {
  const N = 3000;
  const timed = async (retentionMs: number) => {
    await h.pool.query('DELETE FROM outbox');
    await fillOutbox(h.pool, h.topic, 1, N, 50);
    relay = new OutboxRelay({ databaseUrl: h.databaseUrl, schema: h.schema, kafka: h.kafka, logger: h.logger, topics: [h.topic], retentionMs });
    const started = Date.now();
    await relay.start();
    await eventually(async () => (await unpublished()) === 0, 60_000, 20);
    const ms = Date.now() - started;
    await relay.stop();
    relay = undefined;
    return ms;
  };
  await timed(0); // warm-up: topic metadata, producer
  const without = await timed(0);
  const withRetention = await timed(3600_000);
  // eslint-disable-next-line no-console
  console.log(`relay: ${N} rows in ${without} ms deleting, ${withRetention} ms marking published`);
  expect(withRetention).toBeLessThan(without * 2 + 500);
});
