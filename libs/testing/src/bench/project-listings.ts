/**
 * Project listings at scale, through the gateway (issue "Projects API": the performance part). Boots a stack, seeds
 * with SQL (generate_series, not the API) BENCH_PROJECTS projects (default 100,000) over BENCH_NAMESPACES namespaces
 * (default 1,000), a member on 1 in 200 projects and stars on 1 in 100, then measures, as that member, BENCH_SAMPLES
 * sequential calls (default 300, after 30 warm-up) of:
 *   GET /projects?membership=true
 *   GET /projects?search=<a term matching ~1 in 1,000 projects>
 *   GET /projects?pagination=keyset&order_by=id: every page while following Link rel="next" 50 pages deep
 *   GET /projects/:id
 * and prints p50/p99 per scenario, and the plans PostgreSQL chooses for the listing's search and membership filters.
 *
 *   npm run bench:listings            BENCH_PROJECTS=100000 BENCH_NAMESPACES=1000 BENCH_SAMPLES=300
 */
import { Client } from 'pg';
import { benchInfra, latencySummary } from './bench-kit';
import { startStack } from '../stack';
import { seedProjects } from './suite/seed-projects';

const fmt = (samples: number[]) => `${latencySummary(samples)}  (n=${samples.length})`;

async function main(): Promise<void> {
  const projects = Number(process.env.BENCH_PROJECTS ?? 100_000);
  const namespaces = Number(process.env.BENCH_NAMESPACES ?? 1000);
  const samples = Number(process.env.BENCH_SAMPLES ?? 300);
  const infra = await benchInfra();
  const stack = await startStack({ name: 'bench_listings' });
  const db = new Client({ connectionString: infra.databaseUrl });
  await db.connect();
  try {
    const call = async (path: string, token: string, init: RequestInit = {}) => {
      const res = await fetch(`${stack.apiUrl}${path}`, { ...init, headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json', ...init.headers } });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
      return { res, body: JSON.parse(text) as unknown };
    };
    const user = (await call('/users', stack.rootToken, {
      method: 'POST', body: JSON.stringify({ username: 'bench-member', name: 'Bench Member', email: 'bench@example.com', password: 'bench-password-1' }),
    })).body as { id: number };
    const token = ((await call(`/users/${user.id}/personal_access_tokens`, stack.rootToken, { method: 'POST', body: JSON.stringify({ name: 'bench', scopes: ['api'] }) })).body as { token: string }).token;

    const seeded = await seedProjects(db, stack, { projects, namespaces, memberId: user.id });
    console.log(`seeded ${projects} projects over ${namespaces} namespaces in ${seeded.ms} ms; the member is on ${Math.floor(projects / 200)}, stars ${Math.floor(projects / 100)}`);

    const { rows: [one] } = await db.query<{ id: string }>(`SELECT id FROM projects WHERE visibility = 'private' AND id % 200 = 0 LIMIT 1`);
    const time = async (path: string) => {
      const s = process.hrtime.bigint();
      const out = await call(path, token);
      return { ms: Number(process.hrtime.bigint() - s) / 1e6, out };
    };
    const scenario = async (name: string, path: string) => {
      for (let i = 0; i < 30; i++) await time(path);
      const xs: number[] = [];
      for (let i = 0; i < samples; i++) xs.push((await time(path)).ms);
      console.log(`  ${name.padEnd(46)} ${fmt(xs)}`);
    };
    console.log(`through the gateway as a member (sequential, ${samples} calls each after 30 warm-up):`);
    await scenario('GET /projects?membership=true', '/projects?membership=true');
    await scenario('GET /projects?search=4242 (substring, trigram)', '/projects?search=4242');
    await scenario('GET /projects?topic=t7', '/projects?topic=t7');
    await scenario(`GET /projects/:id (private, member)`, `/projects/${one!.id}`);

    const pages: number[] = [];
    for (let round = 0; round < 3; round++) {
      let next: string | undefined = `${stack.apiUrl}/projects?pagination=keyset&order_by=id&sort=desc&per_page=20`;
      for (let page = 0; page < 50 && next; page++) {
        const s = process.hrtime.bigint();
        const res = await fetch(next, { headers: { 'PRIVATE-TOKEN': token } });
        await res.text();
        if (round > 0) pages.push(Number(process.hrtime.bigint() - s) / 1e6);
        next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      }
    }
    console.log(`  ${'GET /projects?pagination=keyset, pages 1-50'.padEnd(46)} ${fmt(pages)}`);

    const explain = async (label: string, sql: string, params: unknown[]) => {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, params);
      console.log(`plan, ${label}:\n${rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}`);
    };
    await explain('search filter', `SELECT id FROM projects p WHERE (p.name ILIKE '%4242%' OR p.path ILIKE '%4242%' OR p.description ILIKE '%4242%') ORDER BY id DESC LIMIT 20`, []);
    await explain('membership filter', `SELECT p.id FROM projects p LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = $1 WHERE m.user_id IS NOT NULL ORDER BY p.id DESC LIMIT 20`, [user.id]);
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
