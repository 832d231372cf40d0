import { Pool } from 'pg';
import { eventually, startPrivatePostgres, startStack, type PrivateInfra, type RunningStack } from '@glp/testing';
import { startLoad, tally, timeUntil } from './faults/load';
import { apiOf } from './webhook-kit';

/**
 * Issue #13, faults: PostgreSQL restarted under load. Every service's pool recovers without a process restart; while
 * the database is gone the API answers 503 JSON (never 500) and after it is back no request fails; the outbox relays
 * (LISTEN and leader-lock connections) and the consumers carry on. The cluster is the file's own (a private Debian
 * cluster from deploy/local/infra.sh), so restarting it disturbs no other test.
 */
describe('PostgreSQL restarted under load', () => {
  let pg: PrivateInfra;
  let stack: RunningStack;
  let pool: Pool;
  let projectId: number;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    stack = await startStack({ name: 'e2e_fault_pg', env: { DATABASE_URL: pg.url, GRPC_DEADLINE_MS: '3000', ALLOW_LOCAL_WEBHOOKS: 'true' } });
    pool = new Pool({ connectionString: pg.url, max: 2 });
    pool.on('error', () => undefined); // its idle connections die with the restart
    const h = apiOf(stack);
    projectId = (await h.post('/projects', { name: 'pg-restart' })).id;
    await h.post(`/projects/${projectId}/hooks`, { url: 'http://127.0.0.1:9/h', push_events: true });
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
    await pool?.end();
    await pg?.remove();
  }, 120_000);

  it('answers 503 JSON while it is down, recovers on its own, and then nothing fails', async () => {
    let n = 0;
    const load = startLoad(stack, (i) =>
      [
        { name: 'GET /projects/:id', path: `/projects/${projectId}` },
        { name: 'GET /user', path: '/user' },
        { name: 'GET /projects/:id/hooks', path: `/projects/${projectId}/hooks` },
        { name: 'POST /projects', path: '/projects', method: 'POST', body: { name: `pg-load-${n++}` } },
        { name: 'GET /projects', path: '/projects?per_page=5' },
      ][i % 5]!, { concurrency: 6 });
    await new Promise((r) => setTimeout(r, 1500));
    const downAt = load.now();
    await pg.down();
    await new Promise((r) => setTimeout(r, 2000));
    const upBegins = load.now();
    await pg.up();
    const upAt = load.now();
    // Recovered: every kind of request succeeds again (each service's pool replaced its dead connections).
    const last: Record<string, string> = {};
    const ok = async (p: string, init: RequestInit = {}) => {
      const res = await fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' } });
      last[`${init.method ?? 'GET'} ${p}`] = `${res.status} ${(await res.text()).slice(0, 200)}`;
      return res.status < 300;
    };
    const recoveryMs = await timeUntil(
      async () => (await Promise.all([ok(`/projects/${projectId}`), ok('/user'), ok(`/projects/${projectId}/hooks`), ok('/projects', { method: 'POST', body: JSON.stringify({ name: `probe-${Date.now()}` }) })])).every(Boolean),
      30_000,
    ).catch((err) => {
      if (process.env.FAULT_DEBUG_LOG) require('node:fs').writeFileSync(process.env.FAULT_DEBUG_LOG, stack.logs());
      throw new Error(`${String(err)}; last answers ${JSON.stringify(last)}`);
    });
    const recoveredAt = load.now();
    await new Promise((r) => setTimeout(r, 3000));
    const samples = await load.stop();
    console.log(
      `PostgreSQL restart: down at ${downAt} ms, start began ${upBegins} ms, accepting at ${upAt} ms, API recovered ${recoveryMs} ms after that; ` +
        `${samples.length} requests ${JSON.stringify(tally(samples))}`,
    );

    expect(samples.filter((s) => s.status === 0).map((s) => `${s.name} ${s.ms} ms ${s.body}`)).toEqual([]);
    // Never a 500: a database that is gone is 503 Service Unavailable with GitLab's JSON.
    expect(samples.filter((s) => s.status >= 500 && !(s.status === 503 && s.body === '{"message":"503 Service Unavailable"}')).map((s) => `${s.name} ${s.status} ${s.body}`)).toEqual([]);
    // After recovery, nothing fails; before the restart nothing failed either.
    expect(samples.filter((s) => (s.at > recoveredAt || s.at + s.ms < downAt) && s.status >= 300).map((s) => `${s.name} ${s.status} ${s.body}`)).toEqual([]);
    expect(recoveryMs).toBeLessThan(15_000);

    // The relays and consumers carry on: projects created after the restart reach repo-admin (a repository each) and
    // every outbox drains.
    const s = stack.schemas;
    await eventually(async () => {
      const { rows } = await pool.query(`SELECT (SELECT count(*) FROM ${s.projects}.outbox WHERE published_at IS NULL) + (SELECT count(*) FROM ${s.identity}.outbox WHERE published_at IS NULL) AS waiting`);
      return Number(rows[0].waiting) === 0;
    }, 30_000, 200);
    const created = await apiOf(stack).post('/projects', { name: 'after-restart' });
    await eventually(async () => (await pool.query(`SELECT 1 FROM ${s.repoAdmin}.repositories WHERE project_id = $1`, [created.id])).rowCount === 1, 30_000, 200);
  }, 180_000);
});
