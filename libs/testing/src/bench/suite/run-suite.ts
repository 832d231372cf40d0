/**
 * The benchmark suite (issue 14): boots its own stack, seeds projects with SQL bulk loads at each of BENCH_SIZES,
 * measures the baselines (bare Node http, direct gRPC GetProject, the SQL alone) and every scenario through the gateway
 * with autocannon at each of BENCH_CONCURRENCY, and writes results.json, report.md and PNG charts under
 * bench/results/<timestamp>/. See bench/README.md.
 *
 *   npm run bench:suite
 *   BENCH_SIZES=10000 BENCH_SECONDS=3 BENCH_CONCURRENCY=1,8 npm run bench:suite     (a smoke run)
 */
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { benchInfra } from '../bench-kit';
import { REPO_ROOT } from '../../infra';
import { startStack, type RunningStack } from '../../stack';
import { grpcGetProject, sqlGetProject, startBareServer } from './baselines';
import { watchHostCpu } from './host-cpu';
import { httpLoad, warmUp } from './load';
import { alternated, medianRun, type LoadNumbers, type Measurement } from './measurement';
import { BARE, GRPC, SQL, writeResults, type SuiteRun } from './report';
import { selectedScenarios, type Scenario, type ScenarioContext } from './scenarios';
import { seedAccessRequests, seedProjects } from './seed-projects';
import { createMember } from './bench-member';
import { waitForQuietServices, watchServices } from './service-metrics';
import { waitForDrainedPipeline } from './drain';
import { suiteConfig } from './suite-config';
import { feedsTarget, pairsCeiling, pairsGrowth } from './targets';

async function createProject(stack: RunningStack, name: string): Promise<number> {
  const res = await fetch(`${stack.apiUrl}/projects`, { method: 'POST', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify({ name }) });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /projects: ${res.status} ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { id: number }).id;
}

async function main(): Promise<void> {
  const cfg = suiteConfig();
  const startedAt = new Date();
  const infra = await benchInfra();
  const stack = await startStack({ name: 'bench_suite' });
  const db = new Client({ connectionString: infra.databaseUrl });
  await db.connect();
  const measurements: Measurement[] = [];
  const seeding: SuiteRun['seeding'] = [];
  const { BENCH_SECONDS: seconds, BENCH_WARMUP_SECONDS: warmup } = cfg;
  const levels = cfg.BENCH_CONCURRENCY;
  const record = (m: Omit<Measurement, 'seconds'>) => {
    const full = { ...m, seconds };
    measurements.push(full);
    const bad = m.errors || m.non2xx ? `  errors ${m.errors} non-2xx ${m.non2xx}` : '';
    const host = m.host ? `  host busy ${m.host.busyPercent.toFixed(0)}% steal ${m.host.stealPercent.toFixed(1)}%` : '';
    console.log(`  ${(m.paired ? `${m.scenario} (paired, ${m.size})` : m.scenario).padEnd(58)} c=${String(m.concurrency).padEnd(3)} ${m.rps.toFixed(0).padStart(7)} req/s  p50 ${m.p50.toFixed(2).padStart(7)}  p90 ${m.p90.toFixed(2).padStart(7)}  p99 ${m.p99.toFixed(2).padStart(7)} ms${bad}${host}`);
  };
  // Before each scenario (and baseline) the background work of the previous one settles, so it is not measured here.
  const settle = async (what: string) => {
    const ms = await waitForQuietServices(stack.metricsUrls);
    if (ms > 3000) console.log(`  (waited ${(ms / 1000).toFixed(1)} s for the services to settle before ${what})`);
  };
  // Every run records the machine's CPU (busy, stolen by the hypervisor); `watched` runs also each service's.
  const onHost = async (run: () => Promise<LoadNumbers>) => {
    const host = watchHostCpu();
    const numbers = await run();
    return { ...numbers, host: host.stop() };
  };
  const watched = async (run: () => Promise<LoadNumbers>, metricsUrls = stack.metricsUrls) => {
    const watch = watchServices(metricsUrls);
    const numbers = await onHost(run);
    return { ...numbers, services: await watch.stop() };
  };
  // A measurement a target is checked against runs BENCH_TARGET_REPEATS times, the median one recorded (medianRun).
  const repeated = async <T extends LoadNumbers>(scenario: string, size: number, c: number, run: () => Promise<T>): Promise<T> => {
    const n = feedsTarget(scenario, size, c, { sizes: cfg.BENCH_SIZES, concurrency: levels }) ? cfg.BENCH_TARGET_REPEATS : 1;
    if (n === 1) return run();
    const runs: T[] = [];
    for (let i = 0; i < n; i++) runs.push(await run());
    const median = medianRun(runs);
    console.log(`  (${scenario} at c=${c}: ${runs.map((r) => `${r.rps.toFixed(0)} req/s p50 ${r.p50.toFixed(2)}`).join(', ')}; the median recorded)`);
    return median;
  };
  // The ceiling at every size, minutes (not a quarter of an hour) before the scenarios it is compared with: this VM's
  // speed drifts through a run, and a fraction of a ceiling measured long before moved with the drift. Its server
  // answers a project of that size's JSON, and stays up through the stage for the ceiling's paired runs (pairsCeiling).
  const startCeilingServer = async () => {
    const res = await fetch(`${stack.apiUrl}/projects/1`, { headers: { 'PRIVATE-TOKEN': stack.rootToken } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET /projects/1: ${res.status} ${body.slice(0, 200)}`);
    return startBareServer(body);
  };
  const ceilingRun = (bare: { url: string }, c: number) => onHost(() => httpLoad({ url: bare.url }, c, seconds, warmup));
  // The smallest size again, for the growth ratios a target checks (targets.ts, pairsGrowth): at the largest size's
  // stage, a second stack like the first, seeded with the smallest size, whose runs alternate with the largest size's.
  // The stages run 15–30 minutes apart, and this VM's speed moves by more than the target's 20% in that time
  // (bench/README.md, "Growth ratios measured paired").
  const [minSize, maxSize] = [Math.min(...cfg.BENCH_SIZES), Math.max(...cfg.BENCH_SIZES)];
  let small: { stack: RunningStack; ctx: ScenarioContext } | undefined;
  const startSmallStack = async (ctx: ScenarioContext, pairedScenarios: readonly Scenario[]) => {
    const smallStack = await startStack({ name: 'bench_suite_small' });
    try {
      const smallMember = await createMember(smallStack);
      const smallDb = new Client({ connectionString: infra.databaseUrl });
      await smallDb.connect();
      try {
        const seeded = await seedProjects(smallDb, smallStack, { projects: minSize, namespaces: cfg.BENCH_NAMESPACES, memberId: smallMember.id });
        console.log(`second stack for the paired growth runs: ${minSize} projects seeded in ${(seeded.ms / 1000).toFixed(1)} s`);
      } finally {
        await smallDb.end();
      }
      // The paired scenarios only read (no approvals on this stack).
      const smallCtx: ScenarioContext = { ...ctx, url: smallStack.url, rootToken: smallStack.rootToken, memberToken: smallMember.token, size: minSize, approveProjectId: 0, firstRequesterId: 0 };
      await warmStack(pairedScenarios, smallCtx, cfg.BENCH_STACK_WARMUP_SECONDS);
      return { stack: smallStack, ctx: smallCtx };
    } catch (err) {
      await smallStack.stop();
      throw err;
    }
  };
  try {
    const member = await createMember(stack);
    // Enough pending requests for the approve scenario at ~1,000 approvals/s at every level (warm-ups included).
    const requestsPerSize = Math.min(200_000, Math.max(2000, Math.ceil(1000 * (seconds + warmup) * levels.length)));
    const scenarios = selectedScenarios(cfg.BENCH_SCENARIOS);
    for (const [sizeIndex, size] of cfg.BENCH_SIZES.entries()) {
      if (sizeIndex > 0) {
        // The previous size's last events land before its projects are replaced, not on the new ones (drain.ts).
        const drained = await waitForDrainedPipeline(db, stack, infra.kafkaBrokers);
        if (drained.left) console.log(`  (the event pipeline did not drain in ${(drained.ms / 1000).toFixed(0)} s: ${JSON.stringify(drained.left)})`);
        else if (drained.ms > 3000) console.log(`  (waited ${(drained.ms / 1000).toFixed(1)} s for the previous size's events)`);
      }
      const seeded = await seedProjects(db, stack, { projects: size, namespaces: cfg.BENCH_NAMESPACES, memberId: member.id });
      // Approval adds a member, which needs the project's namespace known to identity: root's own, made through the API.
      const wantsApprove = scenarios.some((s) => s.name.includes('approve'));
      const approveProjectId = wantsApprove ? await createProject(stack, `bench approvals ${size}`) : 0;
      const firstRequesterId = wantsApprove
        ? await seedAccessRequests(db, stack, { projectId: approveProjectId, from: sizeIndex * requestsPerSize, count: requestsPerSize })
        : 0;
      seeding.push({ size, ms: seeded.ms });
      console.log(`${size} projects seeded in ${(seeded.ms / 1000).toFixed(1)} s (${cfg.BENCH_NAMESPACES} namespaces, the member on ${seeded.memberProjectIds.length})`);
      const ids = Array.from({ length: Math.min(997, size) }, (_, i) => 1 + Math.floor((i * size) / Math.min(997, size)));

      const bare = await startCeilingServer();
      try {
        for (const c of levels) {
          record({ scenario: BARE, kind: 'baseline', growth: false, size, concurrency: c, ...(await repeated(BARE, size, c, () => ceilingRun(bare, c))) });
        }
        const ctx: ScenarioContext = { url: stack.url, rootToken: stack.rootToken, memberToken: member.token, size, namespaces: cfg.BENCH_NAMESPACES, approveProjectId, firstRequesterId };
        if (sizeIndex === 0) await warmStack(scenarios, ctx, cfg.BENCH_STACK_WARMUP_SECONDS);
        await settle(GRPC);
        for (const c of levels) {
          record({ scenario: GRPC, kind: 'baseline', growth: true, size, concurrency: c, ...(await watched(() => grpcGetProject(stack, ids, c, seconds, warmup))) });
        }
        await settle(SQL);
        for (const c of levels) {
          record({ scenario: SQL, kind: 'baseline', growth: true, size, concurrency: c, ...(await onHost(() => sqlGetProject(infra.databaseUrl, stack, ids, c, seconds, warmup))) });
        }
        // Paired at the largest size's stage, whatever the order of BENCH_SIZES (growthRows divides the largest's p50).
        const paired = size === maxSize && size !== minSize ? scenarios.filter((s) => pairsGrowth(s.name)) : [];
        for (const s of scenarios) {
          const load = s.load(ctx);
          if (paired.includes(s)) {
            small ??= await startSmallStack(ctx, paired);
            const other = small;
            const otherLoad = s.load(other.ctx);
            await settle(s.name);
            await waitForQuietServices(other.stack.metricsUrls);
            for (const c of levels) {
              const [smaller, large] = await alternated(
                cfg.BENCH_TARGET_REPEATS,
                () => watched(() => httpLoad(otherLoad, c, seconds, warmup), other.stack.metricsUrls),
                () => watched(() => httpLoad(load, c, seconds, warmup)),
              );
              console.log(`  (${s.name} at c=${c}, alternated: ${minSize} ${smaller.repeats.map((r) => r.p50.toFixed(2)).join(' / ')}, ${size} ${large.repeats.map((r) => r.p50.toFixed(2)).join(' / ')} ms p50; the medians recorded)`);
              record({ scenario: s.name, kind: 'api', growth: s.growth, size, concurrency: c, ...large });
              record({ scenario: s.name, kind: 'api', growth: s.growth, size: minSize, concurrency: c, paired: true, ...smaller });
            }
            if (s === paired[paired.length - 1]) {
              await other.stack.stop();
              small = undefined;
            }
            continue;
          }
          await settle(s.name);
          for (const c of levels) {
            // The share of the ceiling a target checks: a ceiling run before each repeat, the share taken round by round.
            // Each ceiling run waits for the services to settle after the read before it, as the stage's ceiling ran
            // beside a quiet stack. Runs 31–33 still found the paired ceiling 12–31% under the stage's, with the
            // services quiet: the cause is open (bench/README.md, "Run 32"), so the report shows both shares.
            if (pairsCeiling(s.name) && feedsTarget(s.name, size, c, { sizes: cfg.BENCH_SIZES, concurrency: levels })) {
              const quietCeilingRun = async () => {
                await settle(`the ceiling paired with ${s.name}`);
                return ceilingRun(bare, c);
              };
              const [ceiling, measured] = await alternated(cfg.BENCH_TARGET_REPEATS, quietCeilingRun, () => watched(() => httpLoad(load, c, seconds, warmup)));
              console.log(`  (${s.name} at c=${c}, alternated with the ceiling: ${measured.repeats.map((r) => r.rps.toFixed(0)).join(' / ')} against ${ceiling.repeats.map((r) => r.rps.toFixed(0)).join(' / ')} req/s; the medians recorded)`);
              record({ scenario: s.name, kind: 'api', growth: s.growth, size, concurrency: c, ...measured });
              record({ scenario: BARE, kind: 'baseline', growth: false, size, concurrency: c, paired: true, pairedWith: s.name, ...ceiling });
              continue;
            }
            record({ scenario: s.name, kind: 'api', growth: s.growth, size, concurrency: c, ...(await repeated(s.name, size, c, () => watched(() => httpLoad(load, c, seconds, warmup)))) });
          }
        }
      } finally {
        bare.stop();
      }
    }
  } finally {
    await db.end();
    await small?.stack.stop();
    await stack.stop();
  }
  const run: SuiteRun = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { cpus: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, memoryGb: os.totalmem() / 2 ** 30, node: process.version, platform: `${os.platform()} ${os.release()}` },
    config: { sizes: cfg.BENCH_SIZES, concurrency: levels, seconds, warmupSeconds: warmup, namespaces: cfg.BENCH_NAMESPACES, stackWarmupSeconds: cfg.BENCH_STACK_WARMUP_SECONDS, targetRepeats: cfg.BENCH_TARGET_REPEATS },
    seeding,
    measurements,
  };
  const dir = path.join(cfg.BENCH_RESULTS_DIR ?? path.join(REPO_ROOT, 'bench', 'results'), startedAt.toISOString().replace(/[:.]/g, '-'));
  const md = writeResults(dir, run);
  console.log(`\n${md}\nwritten to ${path.relative(process.cwd(), dir) || dir}/ (results.json, report.md, *.png)`);
  if (measurements.some((m) => m.kind === 'api' && m.errors > 0)) process.exitCode = 1;
}

/**
 * Warms the stack once before anything is measured, as a long-running stack is warm (JIT-compiled code, grown heaps):
 * the selected scenarios that only read (GET requests; a write would change what later scenarios measure) at 16
 * connections, `seconds` shared among them. Without it the first scenario measured a stack still warming up.
 */
async function warmStack(scenarios: readonly Scenario[], ctx: ScenarioContext, seconds: number): Promise<void> {
  const reads = scenarios.map((s) => s.load(ctx)).filter((load) => (load.method ?? 'GET') === 'GET' && !load.sequence);
  if (!reads.length || seconds <= 0) return;
  const started = Date.now();
  for (const load of reads) await warmUp(load, 16, Math.max(1, Math.round(seconds / reads.length)));
  console.log(`stack warmed up: ${reads.length} read scenarios for ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
