import type { Client } from 'pg';
import { Kafka, logLevel } from 'kafkajs';
import type { RunningStack } from '../../stack';

/** What is still on its way through the stack's event pipeline. */
export interface Backlog {
  /** Rows in the services' outboxes (not yet relayed to Kafka). */
  outbox: number;
  /** Messages on the stack's topics that its consumer groups have not committed yet. */
  lag: number;
  /** repo-admin's repository jobs not done yet (each one ends in an event). */
  jobs: number;
}

/**
 * Waits until the stack's event pipeline is empty: every outbox relayed, every consumer group of the stack at the end of
 * every topic of the stack, no repository job left; twice in a row, 250 ms apart. Returns the milliseconds waited, or
 * the backlog still left at the deadline.
 *
 * Why: reseeding restarts the project ids at 1, and an event of the previous size that arrives afterwards (repo-admin
 * reporting the repository of a project the POST scenario created) updates the seeded project with the same id. Such
 * late updates cleared the visibility map under the next size's listings: the offset listing at 100,000 projects
 * measured 171 req/s at c=1 after the 10,000 stage against 268 req/s on its own. CPU going quiet (`waitForQuietServices`)
 * is not enough: the trickle at the end is slow.
 */
export async function waitForDrainedPipeline(db: Client, stack: RunningStack, brokers: string[], timeoutMs = 300_000): Promise<{ ms: number; left?: Backlog }> {
  const t0 = Date.now();
  const kafka = new Kafka({ clientId: 'bench-drain', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    // The outbox tables (not every schema has one), found once; each poll counts them all in one statement.
    const { rows } = await db.query<{ t: string }>(`SELECT t FROM unnest($1::text[]) t WHERE to_regclass(t) IS NOT NULL`, [Object.values(stack.schemas).map((s) => `${s}.outbox`)]);
    const pending = [...rows.map((r) => `(SELECT count(*) FROM ${r.t})`), '0'].join(' + ');
    let empty = 0;
    let last: Backlog = { outbox: 0, lag: 0, jobs: 0 };
    while (empty < 2) {
      if (Date.now() - t0 > timeoutMs) return { ms: Date.now() - t0, left: last };
      last = await backlog(db, stack, admin, pending);
      empty = last.outbox + last.lag + last.jobs === 0 ? empty + 1 : 0;
      if (empty < 2) await new Promise((r) => setTimeout(r, 250));
    }
    return { ms: Date.now() - t0 };
  } finally {
    await admin.disconnect();
  }
}

type Admin = ReturnType<Kafka['admin']>;

/** The backlog now; `pending` is the SQL sum of the outboxes' row counts. */
async function backlog(db: Client, stack: RunningStack, admin: Admin, pending: string): Promise<Backlog> {
  const { rows: [row] } = await db.query<{ outbox: string; jobs: string }>(
    `SELECT ${pending} AS outbox, (SELECT count(*) FROM ${stack.schemas.repoAdmin}.repository_jobs) AS jobs`,
  );
  const outbox = Number(row!.outbox);
  const jobs = Number(row!.jobs);
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(stack.topicPrefix));
  const ends = new Map<string, Map<number, number>>();
  for (const topic of topics) ends.set(topic, new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)])));
  // The stack's consumer groups are `<stack id>-<service>`; its topic prefix is `<stack id>.`.
  const groupPrefix = `${stack.topicPrefix.slice(0, -1)}-`;
  const { groups } = await admin.listGroups();
  let lag = 0;
  for (const { groupId } of groups.filter((g) => g.groupId.startsWith(groupPrefix))) {
    for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics })) {
      for (const p of partitions) {
        // Only where the group has committed: it reads some topics only (hooks: projects), and the others stay at -1.
        const committed = Number(p.offset);
        if (committed >= 0) lag += Math.max(0, (ends.get(topic)?.get(p.partition) ?? 0) - committed);
      }
    }
  }
  return { outbox, lag, jobs };
}
