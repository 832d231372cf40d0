/**
 * Webhook delivery, measured end to end: a Push event committed in repo-admin's outbox (as a git push commits it) →
 * relay → Kafka → webhook-dispatcher (fan-out into its queue, claim, HTTP POST) → a receiver on 127.0.0.1.
 *
 *   npm run bench:webhooks          boots its own stack (needs infra: deploy/local/infra.sh up)
 *   BENCH_SECONDS=10 BENCH_BACKLOG_EVENTS=2000 BENCH_RATES=100,500 BENCH_PHASES=latency,backlog,failure npm run bench:webhooks
 *
 * Phases (one stack, P projects with H hooks each, so one event makes H deliveries):
 *   1. latency at a paced 100 and 500 deliveries/s for BENCH_SECONDS: p50/p90/p99 of (receiver got it − event committed);
 *   2. sustained deliveries/s with one dispatcher: a backlog of BENCH_BACKLOG_EVENTS events written at once, drained;
 *   3. the same with a second dispatcher replica on the same queue;
 *   4. a failure run: the receiver answers 500 to 30% of requests at random, then counts lost deliveries (an event/hook
 *      pair never answered 2xx) and duplicated ones (answered 2xx twice), and the retries it took.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { benchInfra, percentile } from './bench-kit';
import { freePort } from '../free-port';
import { REPO_ROOT } from '../infra';
import { pushEventSource } from '../push-event-source';
import { startStack, type RunningStack } from '../stack';
import { startWebhookReceiver, type ReceivedHook } from '../webhook-receiver';

const HOOKS_PER_PROJECT = 5;
const PROJECTS = 10;

interface Row {
  phase: string;
  deliveries: number;
  seconds: number;
  rate: number;
  p50?: number;
  p90?: number;
  p99?: number;
  note?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const backlogEvents = Number(process.env.BENCH_BACKLOG_EVENTS ?? 2000);
  const rates = (process.env.BENCH_RATES ?? '100,500').split(',').map(Number);
  const phases = new Set((process.env.BENCH_PHASES ?? 'latency,backlog,failure').split(','));
  const infra = await benchInfra();
  const receiver = await startWebhookReceiver();
  const stack: RunningStack = await startStack({
    name: 'bench_hooks',
    // Push events are written to the outbox directly: no git push, so no push-rules check.
    without: ['push-rules'],
    env: { ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '2000', WEBHOOK_MAX_ATTEMPTS: '50', LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'warn' },
  });
  const source = pushEventSource(stack, infra.databaseUrl);
  const replicas: ChildProcess[] = [];
  const rows: Row[] = [];
  try {
    const api = (p: string, body?: unknown) =>
      fetch(`${stack.apiUrl}${p}`, { method: body ? 'POST' : 'GET', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    const projectIds: number[] = [];
    for (let p = 0; p < PROJECTS; p++) {
      const res = await api('/projects', { name: `bench-hooks-${p}` });
      if (res.status !== 201) throw new Error(`create project: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: number };
      projectIds.push(id);
      for (let k = 0; k < HOOKS_PER_PROJECT; k++) {
        const hook = await api(`/projects/${id}/hooks`, { url: `${receiver.url}/p${id}/h${k}`, token: `bench-token-${k}` });
        if (hook.status !== 201) throw new Error(`create hook: ${hook.status} ${await hook.text()}`);
      }
    }

    // Each received request, keyed by its event, measured against the time that event committed.
    const committed = new Map<string, number>();
    const since = (from: number) => receiver.received.slice(from);
    const latencies = (got: ReceivedHook[]) =>
      got.map((r) => r.at - (committed.get(String(r.headers['x-gitlab-event-uuid'])) ?? NaN)).filter((n) => Number.isFinite(n)).sort((a, b) => a - b);
    const waitForCount = async (from: number, count: number, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length - from < count) {
        if (Date.now() > deadline) throw new Error(`only ${receiver.received.length - from} of ${count} deliveries arrived`);
        await sleep(20);
      }
    };
    const emitOne = async (projectId: number) => {
      for (const e of await source.emit(projectId)) committed.set(e.eventId, e.committedAt);
    };

    // Warm-up: every project once.
    let from = receiver.received.length;
    for (const id of projectIds) await emitOne(id);
    await waitForCount(from, PROJECTS * HOOKS_PER_PROJECT, 60_000);

    // 1. Paced latency.
    for (const rate of phases.has('latency') ? rates : []) {
      const eventsPerSecond = rate / HOOKS_PER_PROJECT;
      const total = Math.round(eventsPerSecond * seconds);
      from = receiver.received.length;
      const t0 = performance.now();
      for (let i = 0; i < total; i++) {
        const due = t0 + (i * 1000) / eventsPerSecond;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        await emitOne(projectIds[i % projectIds.length]!);
      }
      await waitForCount(from, total * HOOKS_PER_PROJECT, 120_000);
      const l = latencies(since(from));
      const elapsed = (performance.now() - t0) / 1000;
      rows.push({ phase: `paced ${rate}/s`, deliveries: l.length, seconds: elapsed, rate: l.length / elapsed, p50: percentile(l, 0.5), p90: percentile(l, 0.9), p99: percentile(l, 0.99) });
    }

    // 2-3. Sustained: a backlog written at once (4 writers), drained by one and then two dispatchers.
    const backlog = async (label: string) => {
      from = receiver.received.length;
      const t0 = performance.now();
      await Promise.all(
        [0, 1, 2, 3].map(async (w) => {
          for (let i = w; i < backlogEvents; i += 4) await emitOne(projectIds[i % projectIds.length]!);
        }),
      );
      const written = performance.now();
      await waitForCount(from, backlogEvents * HOOKS_PER_PROJECT, 600_000);
      const elapsed = (performance.now() - t0) / 1000;
      const l = latencies(since(from));
      rows.push({
        phase: label, deliveries: l.length, seconds: elapsed, rate: l.length / elapsed, p50: percentile(l, 0.5), p90: percentile(l, 0.9), p99: percentile(l, 0.99),
        note: `events written in ${((written - t0) / 1000).toFixed(1)} s`,
      });
    };
    if (phases.has('backlog')) await backlog('backlog, 1 replica');
    const { main: dispatcherMain, env } = stack.serviceEnv('webhook-dispatcher');
    const [grpcPort, metricsPort] = await Promise.all([freePort(), freePort()]);
    replicas.push(spawn(process.execPath, [dispatcherMain], { cwd: REPO_ROOT, env: { ...process.env, ...env, GRPC_PORT: String(grpcPort), METRICS_PORT: String(metricsPort) }, stdio: 'ignore' }));
    await sleep(5000); // the replica joins the consumer group and starts its workers
    if (phases.has('backlog')) await backlog('backlog, 2 replicas');
    else if (phases.has('latency2')) {
      // Paced latency again with two replicas.
      for (const rate of rates) {
        const eventsPerSecond = rate / HOOKS_PER_PROJECT;
        const total = Math.round(eventsPerSecond * seconds);
        from = receiver.received.length;
        const t0 = performance.now();
        for (let i = 0; i < total; i++) {
          const wait = t0 + (i * 1000) / eventsPerSecond - performance.now();
          if (wait > 0) await sleep(wait);
          await emitOne(projectIds[i % projectIds.length]!);
        }
        await waitForCount(from, total * HOOKS_PER_PROJECT, 120_000);
        const l = latencies(since(from));
        const elapsed = (performance.now() - t0) / 1000;
        rows.push({ phase: `paced ${rate}/s, 2 replicas`, deliveries: l.length, seconds: elapsed, rate: l.length / elapsed, p50: percentile(l, 0.5), p90: percentile(l, 0.9), p99: percentile(l, 0.99) });
      }
    }
    if (phases.has('failure')) {
      // 4. Failure run: 30% of requests answered 500.
      for (const id of projectIds) for (let k = 0; k < HOOKS_PER_PROJECT; k++) receiver.respond(`/p${id}/h${k}`, () => (Math.random() < 0.3 ? 500 : 200));
      from = receiver.received.length;
      const failEvents = 200;
      const t0 = performance.now();
      const emittedIds: string[] = [];
      for (let i = 0; i < failEvents; i++) {
        const [e] = await source.emit(projectIds[i % projectIds.length]!);
        committed.set(e!.eventId, e!.committedAt);
        emittedIds.push(e!.eventId);
      }
      const expected = failEvents * HOOKS_PER_PROJECT;
      const okKeys = new Map<string, number>();
      const deadline = Date.now() + 300_000;
      for (;;) {
        okKeys.clear();
        for (const r of since(from)) if (r.status < 300) okKeys.set(`${String(r.headers['x-gitlab-event-uuid'])} ${r.path}`, (okKeys.get(`${String(r.headers['x-gitlab-event-uuid'])} ${r.path}`) ?? 0) + 1);
        if (okKeys.size >= expected || Date.now() > deadline) break;
        await sleep(200);
      }
      await sleep(3000); // late duplicates would show up here
      okKeys.clear();
      const keysPerPair = new Map<string, Set<string>>();
      for (const r of since(from)) {
        const pair = `${String(r.headers['x-gitlab-event-uuid'])} ${r.path}`;
        if (r.status < 300) okKeys.set(pair, (okKeys.get(pair) ?? 0) + 1);
        (keysPerPair.get(pair) ?? keysPerPair.set(pair, new Set()).get(pair)!).add(String(r.headers['idempotency-key']));
      }
      const lost = expected - okKeys.size;
      const duplicated = [...okKeys.values()].filter((n) => n > 1).length;
      const keyChanges = [...keysPerPair.values()].filter((s) => s.size > 1).length;
      const failed = since(from).filter((r) => r.status >= 500).length;
      const l = latencies(since(from).filter((r) => r.status < 300));
      rows.push({
        phase: 'failure run (30% 500s)', deliveries: okKeys.size, seconds: (performance.now() - t0) / 1000, rate: okKeys.size / ((performance.now() - t0) / 1000),
        p50: percentile(l, 0.5), p90: percentile(l, 0.9), p99: percentile(l, 0.99),
        note: `lost ${lost}, duplicated ${duplicated}, retries ${failed}, pairs with >1 Idempotency-Key ${keyChanges}`,
      });
    }
  } finally {
    for (const r of replicas) r.kill('SIGTERM');
    await source.close();
    await stack.stop();
    await receiver.close();
  }

  const f = (n?: number) => (n === undefined ? '' : n.toFixed(1));
  console.log(`\nwebhook delivery: ${PROJECTS} projects × ${HOOKS_PER_PROJECT} hooks, push event committed → receiver got it\n`);
  console.log('| phase | deliveries | seconds | deliveries/s | p50 ms | p90 ms | p99 ms | notes |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.phase} | ${r.deliveries} | ${f(r.seconds)} | ${f(r.rate)} | ${f(r.p50)} | ${f(r.p90)} | ${f(r.p99)} | ${r.note ?? ''} |`);
  console.log(JSON.stringify({ bench: 'webhooks', rows }));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
