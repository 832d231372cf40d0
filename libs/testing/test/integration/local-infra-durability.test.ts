import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { REPO_ROOT } from '../../src/infra';

const run = promisify(execFile);

/** The URLs `deploy/local/infra.sh env` prints: what `npm start` and `npm test` are given. */
async function localInfraEnv(): Promise<Record<string, string>> {
  const { stdout } = await run('bash', [path.join(REPO_ROOT, 'deploy/local/infra.sh'), 'env']);
  return Object.fromEntries(stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

async function settings(url: string, names: string[]): Promise<Record<string, string>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; setting: string }>('SELECT name, setting FROM pg_settings WHERE name = ANY($1)', [names]);
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  } finally {
    await client.end();
  }
}

describe('local infrastructure (deploy/local/infra.sh): what npm start keeps is durable, what npm test writes may not be', () => {
  let env: Record<string, string>;
  beforeAll(async () => { env = await localInfraEnv(); });

  it("npm start's database has PostgreSQL's durability on", async () => {
    expect(await settings(env.DATABASE_URL!, ['fsync', 'full_page_writes', 'synchronous_commit'])).toEqual({
      fsync: 'on', full_page_writes: 'on', synchronous_commit: 'on',
    });
  });

  it("the tests' database is another one, whose commits do not wait for their WAL flush", async () => {
    expect(env.TEST_DATABASE_URL).toBeDefined();
    expect(new URL(env.TEST_DATABASE_URL!).pathname).not.toBe(new URL(env.DATABASE_URL!).pathname);
    expect(await settings(env.TEST_DATABASE_URL!, ['synchronous_commit'])).toEqual({ synchronous_commit: 'off' });
    // npm test runs on it (deploy/local/test.sh), not on the database npm start keeps.
    if (process.env.npm_lifecycle_event === 'test') expect(process.env.DATABASE_URL).toBe(env.TEST_DATABASE_URL);
  });

  it('the Kafka broker fsyncs every append before acknowledging it and keeps events 7 days', async () => {
    const kafka = new Kafka({ clientId: 'durability-check', brokers: env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { brokers } = await admin.describeCluster();
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.BROKER, name: String(brokers[0]!.nodeId), configNames: ['log.flush.interval.messages', 'log.retention.hours'] }],
      });
      const values = Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
      expect(values).toEqual({ 'log.flush.interval.messages': '1', 'log.retention.hours': '168' });
    } finally {
      await admin.disconnect();
    }
  });
});
