import { Client } from 'pg';
import { TOPICS, topicFor, type Aggregate } from '@glp/events';
import type { SchemaMap } from '../domain/services';
import { SERVICES } from '../domain/services';

async function withClient<T>(databaseUrl: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'backup' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function tableExists(c: Client, schema: string, table: string): Promise<boolean> {
  return (await c.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [schema, table])).rows.length > 0;
}

/**
 * What the target stack already holds, as reasons it is not empty: a project, a repository record, a group, or a user
 * other than the administrator every fresh stack seeds. Schemas that do not exist yet are empty.
 */
export async function targetContents(databaseUrl: string, schemas: SchemaMap): Promise<string[]> {
  return withClient(databaseUrl, async (c) => {
    const found: string[] = [];
    const checks: [string, string, string, string][] = [
      [schemas.projects, 'projects', 'SELECT count(*)::int AS n FROM %s.projects', 'projects'],
      [schemas['repo-admin'], 'repositories', 'SELECT count(*)::int AS n FROM %s.repositories', 'repository records'],
      [schemas.identity, 'namespaces', "SELECT count(*)::int AS n FROM %s.namespaces WHERE kind = 'group'", 'groups'],
      [schemas.identity, 'users', "SELECT count(*)::int AS n FROM %s.users WHERE username <> 'root'", 'users besides root'],
    ];
    for (const [schema, table, sql, what] of checks) {
      if (!(await tableExists(c, schema, table))) continue;
      const n = (await c.query<{ n: number }>(sql.replace('%s', schema))).rows[0]!.n;
      if (n > 0) found.push(`${n} ${what} in ${schema}`);
    }
    return found;
  });
}

/**
 * Marks every retained outbox row unpublished, on the restored stack's topics (a row names the topic of the stack that
 * wrote it: its prefix is replaced by `topicPrefix`): the relays publish them again, and each consumer skips those its
 * processed_events (restored from the same snapshot) already has. Returns the rows marked.
 */
export async function republishOutboxes(databaseUrl: string, schemas: SchemaMap, topicPrefix: string): Promise<number> {
  const topics = Object.keys(TOPICS).map((a) => ({ base: TOPICS[a as Aggregate], target: topicFor(a as Aggregate, topicPrefix) }));
  return withClient(databaseUrl, async (c) => {
    let marked = 0;
    for (const service of SERVICES) {
      if (!(await tableExists(c, schemas[service], 'outbox'))) continue;
      // Every row, published or not, names the source stack's topic.
      for (const t of topics) {
        await c.query(`UPDATE ${schemas[service]}.outbox SET topic = $1 WHERE topic <> $1 AND right(topic, length($2)) = $2`, [t.target, t.base]);
      }
      const { rowCount } = await c.query(`UPDATE ${schemas[service]}.outbox SET published_at = NULL WHERE published_at IS NOT NULL`);
      marked += rowCount ?? 0;
      await c.query(`SELECT pg_notify($1, '')`, [`${schemas[service]}_outbox`]);
    }
    return marked;
  });
}
