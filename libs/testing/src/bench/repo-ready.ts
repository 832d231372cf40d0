/**
 * How soon a project's repository exists after `POST /projects` answered 201, under a sustained rate of creates:
 * BENCH_CREATE_RATE (100) creates per second, paced, for BENCH_CREATE_SECONDS (8) s, at most BENCH_CREATE_INFLIGHT (64)
 * requests in flight. The time of each repository is repo-admin's own record of it (`repositories.created_at`, written
 * once the bare repository is on disk, the moment clone and push can use it), against the project's `created_at`, both
 * from PostgreSQL's clock: no polling load on the stack. Prints the creates' rate and latency, how many repositories
 * were ready within 1 s / 5 s / at the end, and p50/p90/p99/max of the delay, waiting at most BENCH_READY_WAIT_SECONDS
 * (600) for the last one.
 *
 *   npm run bench:repo-ready                        boots its own stack (needs infra: deploy/local/infra.sh up)
 *   BENCH_CREATE_RATE=100 BENCH_CREATE_SECONDS=8 npm run bench:repo-ready
 */
import { Pool } from 'pg';
import { benchInfra, percentile } from './bench-kit';
import { startStack, type RunningStack } from '../stack';

const RATE = Number(process.env.BENCH_CREATE_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_CREATE_SECONDS ?? 8);
const INFLIGHT = Number(process.env.BENCH_CREATE_INFLIGHT ?? 64);
const WAIT_S = Number(process.env.BENCH_READY_WAIT_SECONDS ?? 600);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Paced creates: the i-th starts at i/RATE s (or when a slot frees up, if INFLIGHT are still running). */
async function createProjects(stack: RunningStack): Promise<{ ids: number[]; latencies: number[]; failed: number; wallMs: number }> {
  const total = Math.round(RATE * SECONDS);
  const ids: number[] = [];
  const latencies: number[] = [];
  let failed = 0;
  let inflight = 0;
  const started = Date.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    if (due > Date.now()) await sleep(due - Date.now());
    while (inflight >= INFLIGHT) await sleep(1);
    inflight++;
    const t = Date.now();
    running.push(
      fetch(`${stack.apiUrl}/projects`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `ready-${i}-${t}` }),
      })
        .then(async (res) => {
          const body = (await res.json()) as { id?: number };
          if (res.status === 201 && body.id) {
            ids.push(body.id);
            latencies.push(Date.now() - t);
          } else failed++;
        })
        .catch(() => { failed++; })
        .finally(() => { inflight--; }),
    );
  }
  await Promise.all(running);
  return { ids, latencies, failed, wallMs: Date.now() - started };
}

async function main(): Promise<void> {
  const infra = await benchInfra();
  const stack = await startStack({ name: 'bench_repo_ready', env: { LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'warn' } });
  const pool = new Pool({ connectionString: infra.databaseUrl, max: 2 });
  try {
    const created = await createProjects(stack);
    const createdAt = new Map<number, number>();
    const { rows: projectRows } = await pool.query<{ id: string; t: number }>(
      `SELECT id, extract(epoch FROM created_at) * 1000 AS t FROM ${stack.schemas.projects}.projects WHERE id = ANY($1::bigint[])`, [created.ids],
    );
    for (const r of projectRows) createdAt.set(Number(r.id), Number(r.t));
    const delays = new Map<number, number>();
    const deadline = Date.now() + WAIT_S * 1000;
    while (delays.size < created.ids.length && Date.now() < deadline) {
      const { rows } = await pool.query<{ project_id: string; t: number }>(
        `SELECT project_id, extract(epoch FROM created_at) * 1000 AS t FROM ${stack.schemas.repoAdmin}.repositories WHERE project_id = ANY($1::bigint[])`,
        [created.ids.filter((id) => !delays.has(id))],
      );
      for (const r of rows) delays.set(Number(r.project_id), Number(r.t) - createdAt.get(Number(r.project_id))!);
      if (delays.size < created.ids.length) await sleep(500);
    }
    const d = [...delays.values()].sort((a, b) => a - b);
    const lat = [...created.latencies].sort((a, b) => a - b);
    const within = (ms: number) => d.filter((x) => x <= ms).length;
    const fmt = (ms: number) => (ms / 1000).toFixed(2);
    console.log(`\n# Repository ready after POST /projects (${RATE}/s for ${SECONDS} s, ≤ ${INFLIGHT} in flight)\n`);
    console.log('| what | figure |\n|---|---|');
    console.log(`| creates answered 201 | ${created.ids.length} of ${Math.round(RATE * SECONDS)} (${created.failed} failed) in ${fmt(created.wallMs)} s: ${(created.ids.length / (created.wallMs / 1000)).toFixed(1)}/s |`);
    console.log(`| POST /projects latency p50 / p99 | ${percentile(lat, 0.5)} / ${percentile(lat, 0.99)} ms |`);
    console.log(`| repositories ready ≤ 1 s / ≤ 5 s / at all (waited ≤ ${WAIT_S} s) | ${within(1000)} / ${within(5000)} / ${d.length} of ${created.ids.length} |`);
    if (d.length) {
      console.log(`| delay p50 / p90 / p99 / max | ${fmt(percentile(d, 0.5))} / ${fmt(percentile(d, 0.9))} / ${fmt(percentile(d, 0.99))} / ${fmt(d[d.length - 1]!)} s |`);
      const span = (Math.max(...[...delays].map(([id, x]) => createdAt.get(id)! + x)) - Math.min(...createdAt.values())) / 1000;
      console.log(`| repositories created per second (first create → last repository) | ${(d.length / span).toFixed(1)} |`);
    }
  } finally {
    await pool.end();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
