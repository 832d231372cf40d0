import { Pool } from 'pg';
import { eventually, infraFromEnv, permanentRemovalPath, startPrivateKafka, startStack, type PrivateInfra, type RunningStack } from '@glp/testing';
import { brokenInvariants } from './fuzz/db-invariants';

/**
 * Issue #13, faults: Kafka stopped for 60 s while clients create, edit and delete projects (with hooks and push rules).
 * Every API call succeeds meanwhile (the outboxes hold the events); once Kafka is back, every event reaches every
 * consumer that handles it, and its effect happens once: counted per consumer, 0 lost. The broker is the file's own
 * (a private one from deploy/local/infra.sh), so stopping it disturbs no other test.
 */
const OUTAGE_MS = Number(process.env.FAULT_KAFKA_OUTAGE_MS ?? 60_000);
/** How long repo-admin may go without finishing a repository job before the test calls its worker stalled. */
const JOBS_STALL_MS = 30_000;
const CLIENTS = 4;

/** The consumers of the projects topic and the event types each handles (their main.ts). */
const CONSUMERS = {
  repoAdmin: { consumer: 'repo-admin', types: ['ProjectCreated', 'ProjectForked', 'ProjectDeleted', 'ProjectUpdated'] },
  hooks: { consumer: 'hooks', types: ['ProjectDeleted'] },
  pushRules: { consumer: 'push-rules', types: ['ProjectDeleted'] },
  accessRequests: { consumer: 'access-requests', types: ['ProjectDeleted'] },
} as const;

describe('Kafka stopped for 60 s under writes', () => {
  let kafka: PrivateInfra;
  let stack: RunningStack;
  let pool: Pool;
  const rows = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[];
  const count = async (sql: string, params: unknown[] = []) => Number((await rows<{ n: string }>(`SELECT count(*) AS n FROM (${sql}) s`, params))[0]!.n);

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    stack = await startStack({ name: 'e2e_fault_kafka', env: { KAFKA_BROKERS: kafka.url, ALLOW_LOCAL_WEBHOOKS: 'true' } });
    pool = new Pool({ connectionString: infraFromEnv().databaseUrl, max: 3 });
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
    await kafka?.remove();
    await pool?.end();
  }, 120_000);

  it('answers every call during the outage and, after it, every consumer applies every event once', async () => {
    const s = stack.schemas;
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${stack.apiUrl}${p}`, {
        method, headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    // Everything before the outage is settled: identity's events consumed, no outbox row waiting.
    await eventually(async () => (await count(`SELECT 1 FROM ${s.identity}.outbox WHERE published_at IS NULL`)) === 0 && (await count(`SELECT 1 FROM ${s.projects}.processed_events`)) > 0, 60_000, 200);

    await kafka.down();
    const started = Date.now();
    const calls: { what: string; status: number }[] = [];
    const alive = new Set<number>();
    const deleted = new Set<number>();
    const client = async (c: number) => {
      for (let i = 0; Date.now() - started < OUTAGE_MS; i++) {
        const created = await api('POST', '/projects', { name: `outage-${c}-${i}` });
        calls.push({ what: 'POST /projects', status: created.status });
        if (created.status !== 201) continue;
        const id = created.body.id as number;
        calls.push({ what: 'PUT /projects/:id', status: (await api('PUT', `/projects/${id}`, { description: `edited ${i}` })).status });
        calls.push({ what: 'POST /projects/:id/hooks', status: (await api('POST', `/projects/${id}/hooks`, { url: 'http://127.0.0.1:9/h', push_events: true })).status });
        calls.push({ what: 'POST /projects/:id/push_rule', status: (await api('POST', `/projects/${id}/push_rule`, { deny_delete_tag: true })).status });
        if (i % 2 === 1) {
          // DELETE marks the project (GitLab 18); permanently_remove with its renamed full path removes it at once.
          calls.push({ what: 'DELETE /projects/:id', status: (await api('DELETE', `/projects/${id}`)).status });
          calls.push({ what: 'DELETE /projects/:id?permanently_remove', status: (await api('DELETE', permanentRemovalPath(created.body))).status });
          deleted.add(id);
        } else alive.add(id);
        await new Promise((r) => setTimeout(r, 100)); // a client's think time: ~10 cycles/s in all, 60 s of them
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    const outageMs = Date.now() - started;

    // Every call succeeded while the broker was down.
    const failed = calls.filter((c) => c.status >= 300);
    expect(failed).toEqual([]);
    // The events wait in the projects outbox: one per create, edit, hook or rule change that projects publishes ...
    const waiting = await rows<{ event_id: string; event_type: string }>(`SELECT event_id::text, event_type FROM ${s.projects}.outbox WHERE published_at IS NULL ORDER BY id`);
    const typeOf = (t: string) => t.slice(t.lastIndexOf('.') + 1);
    const byType = (t: string) => waiting.filter((e) => typeOf(e.event_type) === t);
    expect(byType('ProjectCreated').length).toBe(alive.size + deleted.size);
    expect(byType('ProjectDeleted').length).toBe(deleted.size);

    const back = Date.now();
    await kafka.up();
    const brokerBackMs = Date.now() - back;
    // Every outbox drains, and every consumer records every event of the types it handles.
    const expected = Object.fromEntries(
      Object.entries(CONSUMERS).map(([schema, c]) => [schema, new Set(waiting.filter((e) => (c.types as readonly string[]).includes(typeOf(e.event_type))).map((e) => e.event_id))]),
    ) as Record<keyof typeof CONSUMERS, Set<string>>;
    const seen = async (schema: keyof typeof CONSUMERS) => {
      const ids = await rows<{ id: string }>(`SELECT event_id::text AS id FROM ${s[schema]}.processed_events WHERE consumer = $1`, [CONSUMERS[schema].consumer]);
      return ids.map((r) => r.id).filter((id) => expected[schema].has(id)).length;
    };
    const schemas = Object.keys(CONSUMERS) as (keyof typeof CONSUMERS)[];
    // When each consumer applied its first and its last held event (ms after the broker restart began).
    const firstAt: Partial<Record<keyof typeof CONSUMERS, number>> = {};
    const doneAt: Partial<Record<keyof typeof CONSUMERS | 'relay', number>> = {};
    await eventually(async () => {
      for (const k of schemas) {
        const n = await seen(k);
        if (n > 0) firstAt[k] ??= Date.now() - back;
        if (n === expected[k].size) doneAt[k] ??= Date.now() - back;
      }
      if ((await count(`SELECT 1 FROM ${s.projects}.outbox WHERE published_at IS NULL`)) === 0) doneAt.relay ??= Date.now() - back;
      return Object.keys(doneAt).length === schemas.length + 1;
    }, 240_000, 100);
    const drainedMs = Date.now() - back;
    // Effects, once each: a repository per surviving project and none for deleted ones; hooks and push rules of
    // deleted projects gone, the survivors' exactly one each.
    const ids = (set: Set<number>) => [...set];
    // (repo-admin's consumer queues repository jobs in the event's transaction; its worker runs them after.) Each job
    // runs git, so how long ~1,800 of them take depends on the machine and what else runs beside this file: on a slow
    // 2-core machine under the whole suite 270 were left after 60 s, still going down. The worker fails this test when
    // it stops making progress (no job finished for JOBS_STALL_MS), not when it is slow.
    const jobsLeft = () => count(`SELECT 1 FROM ${s.repoAdmin}.repository_jobs`);
    const jobsFrom = Date.now();
    let left = await jobsLeft();
    let progressAt = Date.now();
    while (left > 0) {
      if (Date.now() - progressAt > JOBS_STALL_MS) {
        const jobs = await rows(`SELECT kind, attempts, last_error, count(*)::int AS n FROM ${s.repoAdmin}.repository_jobs GROUP BY 1, 2, 3`);
        const repos = await count(`SELECT 1 FROM ${s.repoAdmin}.repositories WHERE project_id = ANY($1)`, [ids(alive)]);
        throw new Error(`repo-admin finished no job for ${JOBS_STALL_MS} ms: ${repos} of ${alive.size} repositories; jobs waiting ${JSON.stringify(jobs)}`);
      }
      await new Promise((r) => setTimeout(r, 250));
      const now = await jobsLeft();
      if (now < left) progressAt = Date.now();
      left = now;
    }
    const jobsMs = Date.now() - jobsFrom;
    expect(await count(`SELECT 1 FROM ${s.repoAdmin}.repositories WHERE project_id = ANY($1)`, [ids(alive)])).toBe(alive.size);
    expect(await count(`SELECT 1 FROM ${s.repoAdmin}.repositories WHERE project_id = ANY($1)`, [ids(deleted)])).toBe(0);
    expect(await count(`SELECT 1 FROM ${s.hooks}.hooks WHERE project_id = ANY($1)`, [ids(deleted)])).toBe(0);
    expect(await count(`SELECT 1 FROM ${s.pushRules}.push_rules WHERE project_id = ANY($1)`, [ids(deleted)])).toBe(0);
    expect(await rows(`SELECT project_id FROM ${s.hooks}.hooks WHERE project_id = ANY($1) GROUP BY project_id HAVING count(*) <> 1`, [ids(alive)])).toEqual([]);
    expect(await count(`SELECT 1 FROM ${s.hooks}.hooks WHERE project_id = ANY($1)`, [ids(alive)])).toBe(alive.size);
    expect(await count(`SELECT 1 FROM ${s.pushRules}.push_rules WHERE project_id = ANY($1)`, [ids(alive)])).toBe(alive.size);

    const lost = Object.fromEntries(await Promise.all(schemas.map(async (k) => [k, expected[k].size - (await seen(k))])));
    const handled = Object.fromEntries(schemas.map((k) => [k, expected[k].size]));
    console.log(
      `Kafka down ${outageMs} ms: ${calls.length} API calls, ${failed.length} failed; ${waiting.length} projects events held in the outbox ` +
        `(${alive.size + deleted.size} projects created, ${deleted.size} deleted); broker back in ${brokerBackMs} ms; every consumer caught up ` +
        `${drainedMs} ms after the restart began (first event applied at ${JSON.stringify(firstAt)}, all at ${JSON.stringify(doneAt)}); repository jobs done ${jobsMs} ms later; handled per consumer ${JSON.stringify(handled)}, lost ${JSON.stringify(lost)}`,
    );
    expect(Object.values(lost).every((n) => n === 0)).toBe(true);
    // And nothing half-written or orphaned anywhere (the route fuzzer's invariants, here after thousands of real writes).
    expect(await brokenInvariants(pool, s)).toEqual([]);
  }, 480_000);
});
