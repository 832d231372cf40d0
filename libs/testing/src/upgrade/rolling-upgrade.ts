/**
 * The upgrade test: the previous release (deploy/upgrade/previous-release, built in .infra/releases) serves a mixed load
 * (creates, stars, reads, listings, git pushes to a project with a push webhook); this checkout's migrations run while
 * it serves; each service is then replaced by this checkout's build one at a time, as `helm upgrade` rolls Deployments
 * (the new process starts beside the old, takes the address once ready, the old one drains on SIGTERM; repo-admin, a
 * StatefulSet with its volume, stops first); then the post-deployment migrations run. Prints the failed requests (5xx
 * apart), the pushes whose webhook or push event is missing or came twice, the projects without a repository, and how
 * long each step took; exits 1 when any of those is not 0.
 *
 *   npm run test:upgrade          (needs infra: deploy/local/infra.sh up; the first run builds the previous release)
 *   UPGRADE_SETTLE_SECONDS=5 UPGRADE_LOAD_WORKERS=2 npm run test:upgrade
 *   UPGRADE_FROM=self npm run test:upgrade     (a rolling restart of this checkout's build: `kubectl rollout restart`)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { gitCli } from '../git-cli';
import { provideInfra, REPO_ROOT } from '../infra';
import { startStack, type RunningStack, type StackService } from '../stack';
import { startWebhookReceiver } from '../webhook-receiver';
import { builtRelease } from './release-build';
import { previousRelease } from './previous-release';

const run = promisify(execFile);
const SETTLE_S = Number(process.env.UPGRADE_SETTLE_SECONDS ?? 5);
const WORKERS = Number(process.env.UPGRADE_LOAD_WORKERS ?? 2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[upgrade] ${line}\n`);

/** The order services are replaced in: the gateway first, so the new gateway meets every old service. */
const ORDER: StackService[] = ['gateway', 'identity', 'projects', 'access-requests', 'hooks', 'webhook-dispatcher', 'push-rules', 'repo-admin'];
const MIGRATING: StackService[] = ['identity', 'projects', 'access-requests', 'repo-admin', 'hooks', 'webhook-dispatcher', 'push-rules'];

interface Tally {
  requests: number;
  failed: { what: string; status: number | string }[];
  fiveXx: number;
}

async function api(stack: RunningStack, tally: Tally, what: string, method: string, url: string, expected: number[], body?: object): Promise<any> {
  tally.requests++;
  try {
    const res = await fetch(`${stack.apiUrl}${url}`, {
      method,
      headers: { 'PRIVATE-TOKEN': stack.rootToken, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 500) tally.fiveXx++;
    if (!expected.includes(res.status)) {
      tally.failed.push({ what: `${what}: ${text.slice(0, 200)}`, status: res.status });
      return undefined;
    }
    return text ? JSON.parse(text) : {};
  } catch (err) {
    tally.failed.push({ what, status: err instanceof Error ? err.message : String(err) });
    return undefined;
  }
}

/** Runs the services' migrations of `root`'s build against the stack's schemas (regular, or with --post). */
async function migrate(stack: RunningStack, root: string, post: boolean): Promise<void> {
  for (const service of MIGRATING) {
    const { env } = stack.serviceEnv(service);
    await run(process.execPath, [path.join(root, 'apps', service, 'dist', 'main.js'), 'migrate', ...(post ? ['--post'] : [])], {
      cwd: root, env: { ...process.env, ...env, MIGRATE_POST_DEPLOYMENT: 'false' }, maxBuffer: 64 * 1024 * 1024,
    });
  }
}

async function main(): Promise<void> {
  const infra = await provideInfra('tests');
  Object.assign(process.env, { DATABASE_URL: infra.databaseUrl, REDIS_URL: infra.redisUrl, KAFKA_BROKERS: infra.kafkaBrokers.join(',') });
  const self = process.env.UPGRADE_FROM === 'self';
  const commit = self ? 'this checkout' : await previousRelease();
  const t0 = Date.now();
  const previous = self ? REPO_ROOT : await builtRelease(commit, log);
  log(`previous release ${commit.slice(0, 12)} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const receiver = await startWebhookReceiver();
  // Old services apply the previous release's migrations only (as its own deployment did).
  const stack = await startStack({
    name: 'upgrade', serviceRoot: previous, rolling: true,
    env: { ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_POLL_MS: '200', MIGRATE_POST_DEPLOYMENT: 'false' },
  });
  const home = mkdtempSync(path.join(os.tmpdir(), 'glp-upgrade-'));
  const { mustGit, git } = gitCli(home);
  const pool = new Pool({ connectionString: infra.databaseUrl, max: 2 });
  const tally: Tally = { requests: 0, failed: [], fiveXx: 0 };
  const created: number[] = [];
  const pushed: string[] = [];
  const pushedAt: number[] = [];
  const t00 = Date.now();
  let stopping = false;
  let exitCode = 0;
  try {
    // The project pushes go to, with its push webhook.
    const target = await api(stack, tally, 'create target', 'POST', '/projects', [201], { name: 'upgrade-target', initialize_with_readme: true });
    if (!target) throw new Error(`could not create the target project: ${JSON.stringify(tally.failed)}`);
    await api(stack, tally, 'add hook', 'POST', `/projects/${target.id}/hooks`, [201], { url: `${receiver.url}/push`, push_events: true });
    const remote = `${stack.url.replace('http://', `http://oauth2:${stack.rootToken}@`)}/${target.path_with_namespace}.git`;
    const work = path.join(home, 'work');
    for (let i = 0; ; i++) {
      if ((await git(home, 'clone', '--quiet', remote, work)).code === 0) break;
      if (i > 100) throw new Error('the target repository never became cloneable');
      await sleep(200);
    }
    await mustGit(work, 'config', 'user.email', 'load@example.com');
    await mustGit(work, 'config', 'user.name', 'Load');

    const writer = async (w: number) => {
      for (let i = 0; !stopping; i++) {
        const p = await api(stack, tally, 'create', 'POST', '/projects', [201], { name: `load-${w}-${i}-${Date.now()}` });
        if (p) {
          created.push(p.id);
          await api(stack, tally, 'star', 'POST', `/projects/${p.id}/star`, [201, 304]);
          await api(stack, tally, 'get', 'GET', `/projects/${p.id}`, [200]);
        }
      }
    };
    const reader = async () => {
      while (!stopping) {
        await api(stack, tally, 'list', 'GET', '/projects?per_page=20&order_by=id', [200]);
        const id = created[Math.floor(Math.random() * created.length)];
        if (id) await api(stack, tally, 'get', 'GET', `/projects/${id}?statistics=true`, [200]);
        await sleep(20);
      }
    };
    const pusher = async () => {
      for (let i = 0; !stopping; i++) {
        writeFileSync(path.join(work, 'load.txt'), `${i} ${Date.now()}\n`);
        await mustGit(work, 'add', 'load.txt');
        await mustGit(work, 'commit', '--quiet', '-m', `load ${i}`);
        const sha = await mustGit(work, 'rev-parse', 'HEAD');
        tally.requests++;
        const r = await git(work, 'push', '--quiet', 'origin', 'HEAD:main');
        if (r.code === 0) pushed.push(sha), pushedAt.push(Date.now() - t00);
        else {
          tally.failed.push({ what: `push: ${r.stderr.trim().slice(0, 200)}`, status: r.code });
          await mustGit(work, 'reset', '--quiet', '--hard', 'HEAD~1');
        }
        await sleep(250);
      }
    };
    // A loop that throws ends the run (stopping the others) rather than leaving it half-loaded.
    const load = Promise.all([...Array.from({ length: WORKERS }, (_, w) => writer(w)), reader(), pusher()].map((p) => p.catch((err: unknown) => {
      stopping = true;
      throw err;
    })));
    load.catch(() => undefined);

    const steps: [string, number][] = [];
    const timed = async (name: string, fn: () => Promise<unknown>) => {
      const t = Date.now();
      await fn();
      steps.push([name, Date.now() - t]);
      log(`${name}: ${Date.now() - t} ms (from ${t - t00} ms)`);
    };
    await sleep(SETTLE_S * 1000);
    const upgradeStarted = Date.now();
    await timed('migrations (regular)', () => migrate(stack, REPO_ROOT, false));
    // Push events are recorded from the new projects service on (the previous release has no project events).
    let pushesBeforeNewProjects = 0;
    for (const service of ORDER) {
      await timed(`replace ${service}`, () => stack.replace(service, { root: REPO_ROOT, recreate: service === 'repo-admin' }));
      if (service === 'projects') pushesBeforeNewProjects = pushed.length;
      await sleep(1000);
    }
    await timed('migrations (post-deployment)', () => migrate(stack, REPO_ROOT, true));
    const upgradeMs = Date.now() - upgradeStarted;
    await sleep(SETTLE_S * 1000);
    stopping = true;
    await load;

    // Effects: each push's webhook and push event exactly once, each created project with its repository.
    const deadline = Date.now() + 60_000;
    const deliveries = () => {
      const bySha = new Map<string, number>();
      for (const hook of receiver.at('/push')) {
        const after = (JSON.parse(hook.body) as { after?: string }).after ?? '';
        bySha.set(after, (bySha.get(after) ?? 0) + 1);
      }
      return bySha;
    };
    while (Date.now() < deadline && pushed.some((sha) => !deliveries().has(sha))) await sleep(500);
    const bySha = deliveries();
    const hooksMissing = pushed.filter((sha) => !bySha.has(sha)).length;
    const hooksTwice = pushed.filter((sha) => (bySha.get(sha) ?? 0) > 1).length;
    const events: { push_data?: { commit_to?: string } }[] = [];
    for (let page = 1; ; page++) {
      const batch = await api(stack, tally, 'events', 'GET', `/projects/${target.id}/events?action=pushed&per_page=100&page=${page}`, [200]);
      if (!batch?.length) break;
      events.push(...batch);
    }
    const eventCount = new Map<string, number>();
    for (const e of events) eventCount.set(e.push_data?.commit_to ?? '', (eventCount.get(e.push_data?.commit_to ?? '') ?? 0) + 1);
    const recorded = pushed.slice(pushesBeforeNewProjects);
    const eventsMissing = recorded.filter((sha) => !eventCount.has(sha)).length;
    for (const sha of recorded.filter((x) => !eventCount.has(x))) log(`push event missing: push #${pushed.indexOf(sha)} at ${pushedAt[pushed.indexOf(sha)]} ms (${sha})`);
    const eventsTwice = pushed.filter((sha) => (eventCount.get(sha) ?? 0) > 1).length;
    let withoutRepository = created.length;
    while (Date.now() < deadline) {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${stack.schemas.repoAdmin}.repositories WHERE project_id = ANY($1::bigint[])`, [created]);
      withoutRepository = created.length - rows[0]!.n;
      if (withoutRepository === 0) break;
      await sleep(500);
    }
    if (withoutRepository) {
      const { rows } = await pool.query(
        `SELECT p.id, j.kind, j.attempts, j.last_error, j.run_after, j.claimed_until FROM unnest($1::bigint[]) AS p(id)
         LEFT JOIN ${stack.schemas.repoAdmin}.repositories r ON r.project_id = p.id
         LEFT JOIN ${stack.schemas.repoAdmin}.repository_jobs j ON j.project_id = p.id WHERE r.project_id IS NULL`, [created]);
      for (const row of rows) log(`without a repository: ${JSON.stringify(row)} (created #${created.indexOf(Number(row.id))} of ${created.length})`);
    }

    const fivexx = tally.fiveXx;
    console.log(`\n# Rolling upgrade from ${commit.slice(0, 12)} to this checkout (${WORKERS} writers, a reader, a pusher)\n`);
    console.log('| what | figure |\n|---|---|');
    console.log(`| requests (API calls and pushes) | ${tally.requests} |`);
    console.log(`| failed requests / of them 5xx | ${tally.failed.length} / ${fivexx} |`);
    console.log(`| projects created / without a repository | ${created.length} / ${withoutRepository} |`);
    console.log(`| pushes / webhook missing / webhook twice | ${pushed.length} / ${hooksMissing} / ${hooksTwice} |`);
    console.log(`| pushes since the new projects service / push event missing / push event twice | ${recorded.length} / ${eventsMissing} / ${eventsTwice} |`);
    console.log(`| upgrade (migrations, 8 replacements, post-deployment migrations) | ${(upgradeMs / 1000).toFixed(1)} s |`);
    for (const [name, ms] of steps) console.log(`| ${name} | ${(ms / 1000).toFixed(1)} s |`);
    const failures = new Map<string, number>();
    for (const f of tally.failed) failures.set(`${f.status} ${f.what}`, (failures.get(`${f.status} ${f.what}`) ?? 0) + 1);
    for (const [what, n] of [...failures].slice(0, 20)) console.log(`failed ×${n}: ${what}`);
    if (tally.failed.length || fivexx || withoutRepository || hooksMissing || hooksTwice || eventsMissing || eventsTwice) exitCode = 1;
  } finally {
    stopping = true;
    await pool.end();
    await stack.stop();
    await receiver.close();
    rmSync(home, { recursive: true, force: true });
  }
  process.exitCode = exitCode;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
