// Shared set-up for the libs/events integration tests: a fresh schema with the events
// migrations, a pool on it, a unique topic prefix, and clean-up of all of it.
import { createPool, runMigrations, type Pool } from '@glp/db';
import { createLogger, type Logger } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { createKafka, eventsMigrationSet, topicFor, type Kafka } from '../../src';

export interface Harness {
  schema: string;
  databaseUrl: string;
  brokers: string[];
  pool: Pool;
  kafka: Kafka;
  logger: Logger;
  /** gitlab.projects.events with this file's unique prefix. */
  topic: string;
  /** A unique name for a consumer group / consumer. */
  name(prefix: string): string;
  close(): Promise<void>;
}

export async function setUpHarness(label: string, extraSql = ''): Promise<Harness> {
  const infra = infraFromEnv();
  const schema = uniqueName(`evt_${label}`);
  const prefix = uniqueName(`evt-${label}`).replace(/_/g, '-');
  await runMigrations({ url: infra.databaseUrl, schema, sets: [eventsMigrationSet()] });
  const pool = createPool({ url: infra.databaseUrl, schema, max: 5 });
  if (extraSql) await pool.query(extraSql);
  // Silent unless EVENTS_TEST_LOG=debug|info|warn…
  const logger = createLogger(`events-test-${label}`, process.env.EVENTS_TEST_LOG ?? 'silent');
  const kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: `events-test-${label}`, logger });
  const topic = topicFor('projects', prefix);
  return {
    schema,
    databaseUrl: infra.databaseUrl,
    brokers: infra.kafkaBrokers,
    pool,
    kafka,
    logger,
    topic,
    name: (p) => uniqueName(`${p}-${label}`).replace(/_/g, '-'),
    async close() {
      await pool.end();
      await dropSchemas(schema);
      // Best effort: a broker that is down (or a topic never created) must not fail the suite.
      const admin = kafka.admin();
      try {
        await admin.connect();
        const existing = await admin.listTopics();
        const ours = existing.filter((t) => t.startsWith(prefix));
        if (ours.length) await admin.deleteTopics({ topics: ours, timeout: 5000 });
      } catch {
        /* ignore */
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    },
  };
}

export async function count(pool: Pool, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) q`, params);
  return rows[0].n;
}
