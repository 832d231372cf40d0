// The relay survives a Kafka outage: events written while the broker is down stay in the
// outbox and are published, none lost and in order, once it is back.
//
// STOPS THE SHARED BROKER (deploy/local/infra.sh down kafka): run this file serially,
// never next to other tests that use Kafka. infra.sh inherits this process's environment
// (KAFKA_PORT, KAFKA_CONTROLLER_PORT, INFRA_STATE_DIR), so it stops the broker the test uses.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { withTransaction } from '@glp/db';
import { projectEventsV1 } from '@glp/proto';
import { eventually, REPO_ROOT } from '@glp/testing';
import { appendEvent, EventConsumer, EventTypes, onEvent, OutboxRelay } from '../../src';
import { count, setUpHarness, type Harness } from './harness';

const INFRA = path.join(REPO_ROOT, 'deploy/local/infra.sh');
const N1 = 20;
const N2 = 30;
const KEY = 'project:ordered';

let h: Harness;
let relay: OutboxRelay;
let consumer: EventConsumer;
let kafkaStopped = false;

function infra(action: 'up' | 'down'): void {
  execFileSync('bash', [INFRA, action, 'kafka'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 170_000 });
}

function kafkaAnswers(): boolean {
  try {
    execFileSync('bash', [INFRA, 'status', 'kafka'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Appends events seq from..to, one transaction each, all with the same aggregate key. */
async function appendRange(from: number, to: number): Promise<void> {
  for (let seq = from; seq <= to; seq++) {
    await withTransaction(h.pool, async (client) => {
      await appendEvent(client, {
        topic: h.topic,
        aggregateType: 'project',
        aggregateKey: KEY,
        payloadType: EventTypes.ProjectCreated,
        payload: projectEventsV1.ProjectCreated.fromPartial({ projectId: seq, name: `seq ${seq}` }),
      });
    });
  }
}

const applied = () => count(h.pool, 'SELECT 1 FROM effects');

beforeAll(async () => {
  // infra.sh must drive the broker this test talks to.
  const brokerPort = process.env.KAFKA_BROKERS?.split(',')[0]?.split(':').pop();
  const infraPort = process.env.KAFKA_PORT ?? '9092';
  if (brokerPort !== infraPort) {
    throw new Error(`KAFKA_BROKERS port ${brokerPort} is not the port infra.sh manages (${infraPort}); set KAFKA_PORT`);
  }
  h = await setUpHarness('kr', `CREATE TABLE effects (id bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, seq int NOT NULL);`);
  relay = new OutboxRelay({
    databaseUrl: h.databaseUrl,
    schema: h.schema,
    kafka: h.kafka,
    logger: h.logger,
    topics: [h.topic],
    pollIntervalMs: 500,
    batchSize: 10,
    backoffInitialMs: 200,
    backoffMaxMs: 2000,
  });
  consumer = new EventConsumer({
    pool: h.pool,
    kafka: h.kafka,
    groupId: h.name('kr-group'),
    consumerName: 'kafka-restart-test',
    topics: [h.topic],
    logger: h.logger,
    fromBeginning: true,
    // After the outage the restarted consumer joins as a new member; the group waits for the
    // old member's session to expire before rebalancing (30 s by default).
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 1_000,
    handlers: onEvent(EventTypes.ProjectCreated, async ({ client, envelope, payload }) => {
      await client.query('INSERT INTO effects (event_id, seq) VALUES ($1, $2)', [envelope.eventId, payload.projectId]);
    }),
  });
  await relay.start();
  await consumer.start();
});

afterAll(async () => {
  // Whatever happened, leave the broker running for whoever comes next.
  if (kafkaStopped) {
    try {
      infra('up');
    } catch (err) {
      console.error(`could not restart Kafka: ${String((err as { stderr?: Buffer }).stderr ?? err)}`);
    }
  }
  await consumer?.stop();
  await relay?.stop();
  await h?.close();
}, 180_000);

it('keeps events in the outbox while Kafka is down and publishes them all, in order, after it returns', async () => {
  await appendRange(1, N1);
  await eventually(async () => (await applied()) === N1, 30_000, 100);

  kafkaStopped = true;
  infra('down');
  // infra.sh only stops a broker it started (its pid file); one started from another checkout keeps running.
  if (kafkaAnswers()) throw new Error('Kafka is still up after `infra.sh down kafka`: the broker was not started by this checkout\'s deploy/local/infra.sh');

  const failuresBefore = relay.stats.failures;
  await appendRange(N1 + 1, N1 + N2);
  // The relay tries, fails, backs off; nothing leaves the outbox.
  await eventually(async () => relay.stats.failures > failuresBefore + 1, 30_000, 100);
  expect(await count(h.pool, 'SELECT 1 FROM outbox')).toBe(N2);
  expect(await applied()).toBe(N1);

  infra('up');
  kafkaStopped = false;

  await eventually(async () => (await applied()) >= N1 + N2, 120_000, 200);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 0, 10_000);
  // Nothing lost, nothing applied twice, per-key order kept.
  const { rows } = await h.pool.query<{ seq: number }>('SELECT seq FROM effects ORDER BY id');
  expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: N1 + N2 }, (_, i) => i + 1));
  expect(await count(h.pool, 'SELECT 1 FROM processed_events')).toBe(N1 + N2);
  expect(relay.stats.published).toBeGreaterThanOrEqual(N1 + N2);
}, 180_000);
