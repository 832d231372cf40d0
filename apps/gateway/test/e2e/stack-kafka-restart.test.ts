// The whole stack keeps serving while Kafka is down, and nothing is lost: events wait in the
// outboxes and are consumed once the broker is back.
// STOPS THE SHARED BROKER: deploy/local/test.sh runs files named *kafka-restart* alone.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Pool } from 'pg';
import { eventually, infraFromEnv, REPO_ROOT, startStack, type RunningStack } from '@glp/testing';

const INFRA = path.join(REPO_ROOT, 'deploy/local/infra.sh');
const infra = (action: 'up' | 'down') => execFileSync('bash', [INFRA, action, 'kafka'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 170_000 });

describe('stack during a Kafka outage', () => {
  let stack: RunningStack;
  let pool: Pool;
  let kafkaDown = false;
  const count = async (sql: string) => (await pool.query(`SELECT count(*)::int AS n FROM (${sql}) s`)).rows[0].n as number;

  beforeAll(async () => {
    pool = new Pool({ connectionString: infraFromEnv().databaseUrl, max: 2 });
    kafkaDown = true;
    infra('down');
    stack = await startStack({ name: 'e2e_kafka_down' });
  }, 180_000);
  afterAll(async () => {
    if (kafkaDown) infra('up');
    await stack?.stop();
    await pool?.end();
  }, 180_000);

  it('serves reads and writes without Kafka, then publishes and consumes everything when it returns', async () => {
    const api = (p: string, init: RequestInit = {}, token = stack.rootToken) =>
      fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json', ...init.headers } });
    const post = (p: string, body: unknown, token?: string) => api(p, { method: 'POST', body: JSON.stringify(body) }, token);

    const created = await post('/projects', { name: 'while-kafka-down' });
    expect(created.status).toBe(201);
    expect((await api('/projects/root%2Fwhile-kafka-down')).status).toBe(200);

    // A new user can create a project at once: projects asks identity for the namespace
    // its event-fed copy does not have yet.
    const user = await (await post('/users', { username: 'outage', name: 'Outage', email: 'outage@example.com', password: 'outage-pass-1' })).json();
    const pat = await (await post(`/users/${user.id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).json();
    const own = await post('/projects', { name: 'mine' }, pat.token);
    expect(own.status).toBe(201);
    expect((await own.json()).path_with_namespace).toBe('outage/mine');

    const { identity, projects } = stack.schemas;
    expect(await count(`SELECT 1 FROM ${identity}.outbox WHERE published_at IS NULL`)).toBeGreaterThanOrEqual(3); // root + outage user/namespace events
    expect(await count(`SELECT 1 FROM ${projects}.outbox WHERE published_at IS NULL`)).toBe(2);

    infra('up');
    kafkaDown = false;
    await eventually(async () => (await count(`SELECT 1 FROM ${identity}.outbox WHERE published_at IS NULL`)) === 0 && (await count(`SELECT 1 FROM ${projects}.outbox WHERE published_at IS NULL`)) === 0, 60_000, 250);
    // the projects consumer applied identity's NamespaceChanged events (root's and outage's)
    await eventually(async () => (await count(`SELECT 1 FROM ${projects}.processed_events`)) >= 2, 90_000, 250);
  }, 180_000);
});
