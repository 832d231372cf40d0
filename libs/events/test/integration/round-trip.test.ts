// Outbox → relay → Kafka → idempotent consumer, against real PostgreSQL and Kafka.
import { projectEventsV1 } from '@glp/proto';
import { withTransaction } from '@glp/db';
import { eventually } from '@glp/testing';
import { appendEvent, EventConsumer, EventTypes, onEvent, OutboxRelay, payloadType, type EventEnvelope } from '../../src';
import { count, setUpHarness, type Harness } from './harness';

const SQL = `
  CREATE TABLE projects (id bigint PRIMARY KEY, name text NOT NULL);
  CREATE TABLE effects (
    event_id uuid PRIMARY KEY, project_id bigint NOT NULL, name text NOT NULL,
    path_with_namespace text NOT NULL, visibility text NOT NULL, actor text, aggregate_key text NOT NULL
  );`;

// An event type no handler knows (reuses the ProjectCreated codec under another name).
const ProjectArchived = payloadType('gitlab.events.v1.ProjectArchived', projectEventsV1.ProjectCreated);

let h: Harness;
let relay: OutboxRelay;
let consumer: EventConsumer;
/** project ids whose handler should fail this many more times */
const failuresLeft = new Map<number, number>();

function projectCreated(id: number, name = `Project ${id}`): projectEventsV1.ProjectCreated {
  return projectEventsV1.ProjectCreated.fromPartial({
    projectId: id,
    name,
    path: `project-${id}`,
    pathWithNamespace: `alice/project-${id}`,
    namespaceId: 7,
    creatorId: 3,
    visibility: 'internal',
    createdAt: new Date(),
  });
}

/** The service-side write: the project row and its event in one transaction. */
async function createProject(id: number, name?: string): Promise<EventEnvelope> {
  return withTransaction(h.pool, async (client) => {
    const p = projectCreated(id, name);
    await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [id, p.name]);
    return appendEvent(client, {
      topic: h.topic,
      aggregateType: 'project',
      aggregateKey: `project:${id}`,
      payloadType: EventTypes.ProjectCreated,
      payload: p,
      actor: { id: 3, username: 'alice' },
    });
  });
}

beforeAll(async () => {
  h = await setUpHarness('rt', SQL);
  relay = new OutboxRelay({ databaseUrl: h.databaseUrl, schema: h.schema, kafka: h.kafka, logger: h.logger, topics: [h.topic] });
  consumer = new EventConsumer({
    pool: h.pool,
    kafka: h.kafka,
    groupId: h.name('rt-group'),
    consumerName: 'round-trip-test',
    topics: [h.topic],
    logger: h.logger,
    fromBeginning: true,
    retryInitialMs: 50,
    handlers: onEvent(EventTypes.ProjectCreated, async ({ client, envelope, payload }) => {
      const left = failuresLeft.get(payload.projectId) ?? 0;
      if (left > 0) {
        failuresLeft.set(payload.projectId, left - 1);
        // A write before the failure must be rolled back with it.
        await client.query(
          `INSERT INTO effects VALUES ($1, $2, 'partial', '', '', NULL, $3)`,
          [envelope.eventId, payload.projectId, envelope.aggregateKey],
        );
        throw new Error(`injected handler failure for project ${payload.projectId}`);
      }
      await client.query('INSERT INTO effects VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        envelope.eventId,
        payload.projectId,
        payload.name,
        payload.pathWithNamespace,
        payload.visibility,
        envelope.actor?.username ?? null,
        envelope.aggregateKey,
      ]);
    }),
  });
  await relay.start();
  await consumer.start();
});

afterAll(async () => {
  await consumer?.stop();
  await relay?.stop();
  await h?.close();
});

it('publishes a committed event and the consumer applies it once', async () => {
  const env = await createProject(1, 'Hello World');

  const effect = await eventually(async () => {
    const { rows } = await h.pool.query('SELECT * FROM effects WHERE event_id = $1', [env.eventId]);
    return rows[0];
  }, 30000);
  expect(effect).toEqual({
    event_id: env.eventId,
    project_id: 1,
    name: 'Hello World',
    path_with_namespace: 'alice/project-1',
    visibility: 'internal',
    actor: 'alice',
    aggregate_key: 'project:1',
  });
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM outbox')) === 0, 10000);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events WHERE event_id = $1', [env.eventId])).toBe(1);
  expect(relay.stats.published).toBeGreaterThanOrEqual(1);
  expect(relay.stats.leader).toBe(true);
});

it('publishes nothing for a rolled-back transaction', async () => {
  await expect(
    withTransaction(h.pool, async (client) => {
      await client.query('INSERT INTO projects (id, name) VALUES (2, $1)', ['Doomed']);
      await appendEvent(client, {
        topic: h.topic,
        aggregateType: 'project',
        aggregateKey: 'project:2',
        payloadType: EventTypes.ProjectCreated,
        payload: projectCreated(2, 'Doomed'),
      });
      throw new Error('business rule violated');
    }),
  ).rejects.toThrow('business rule violated');
  expect(await count(h.pool, 'SELECT 1 FROM outbox')).toBe(0);

  // A later event on the same topic arrives; the rolled-back one never did.
  const marker = await createProject(3);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [marker.eventId])) === 1, 30000);
  expect(await count(h.pool, 'SELECT 1 FROM effects WHERE project_id = 2')).toBe(0);
  expect(await count(h.pool, 'SELECT 1 FROM projects WHERE id = 2')).toBe(0);
});

it('skips an event type without a handler and does not record it', async () => {
  const archived = await withTransaction(h.pool, (client) =>
    appendEvent(client, {
      topic: h.topic,
      aggregateType: 'project',
      aggregateKey: 'project:1',
      payloadType: ProjectArchived,
      payload: projectCreated(1),
    }),
  );
  const skippedBefore = consumer.stats.skipped;
  const marker = await createProject(4);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [marker.eventId])) === 1, 30000);
  // Not recorded: a handler added later still gets it (see unknown-event-type.test.ts).
  expect(await count(h.pool, 'SELECT 1 FROM processed_events WHERE event_id = $1', [archived.eventId])).toBe(0);
  expect(await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [archived.eventId])).toBe(0);
  expect(consumer.stats.skipped).toBe(skippedBefore + 1);
});

it('handles the events before a failing one in a batch (their transaction commits), and holds only from the failing one on', async () => {
  // Both events in one write: one relay batch, one fetch, one consumer transaction until the second one fails.
  failuresLeft.set(8, 1_000_000);
  const [ok, failing] = await withTransaction(h.pool, async (client) => {
    const out: EventEnvelope[] = [];
    for (const id of [7, 8]) {
      await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [id, `Project ${id}`]);
      out.push(await appendEvent(client, { topic: h.topic, aggregateType: 'project', aggregateKey: `project:${id}`, payloadType: EventTypes.ProjectCreated, payload: projectCreated(id) }));
    }
    return out;
  });
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [ok!.eventId])) === 1, 30000);
  await eventually(async () => (failuresLeft.get(8) ?? 0) < 1_000_000 - 3, 30000);
  expect(await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [failing!.eventId])).toBe(0);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events WHERE event_id = $1', [failing!.eventId])).toBe(0);

  failuresLeft.set(8, 0);
  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [failing!.eventId])) === 1, 30000);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events WHERE event_id = ANY($1::uuid[])', [[ok!.eventId, failing!.eventId]])).toBe(2);
  expect(await count(h.pool, "SELECT 1 FROM effects WHERE name = 'partial'")).toBe(0);
});

it('rolls back a failing handler and retries it before moving on', async () => {
  failuresLeft.set(5, 3);
  const failuresBefore = consumer.stats.failures;
  const failing = await createProject(5);
  const next = await createProject(6);

  await eventually(async () => (await count(h.pool, 'SELECT 1 FROM effects WHERE event_id = $1', [next.eventId])) === 1, 30000);
  const { rows } = await h.pool.query('SELECT name FROM effects WHERE event_id = $1', [failing.eventId]);
  expect(rows).toEqual([{ name: 'Project 5' }]);
  expect(consumer.stats.failures - failuresBefore).toBe(3);
  expect(failuresLeft.get(5)).toBe(0);
  expect(await count(h.pool, 'SELECT 1 FROM processed_events WHERE event_id = $1', [failing.eventId])).toBe(1);
});
