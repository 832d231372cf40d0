/**
 * Where each millisecond of CPU of a request goes, measured on the CPUs (issue 14's "where every millisecond goes"):
 * boots a stack whose gateway and projects name their JIT code for perf (`--perf-basic-prof`), seeds projects as the
 * suite does, warms a scenario up, then records the whole machine with `perf record -a -g` while autocannon runs it,
 * and prints each process's share of the machine and ms of CPU per request, the Node services by category (gRPC,
 * HTTP, Express, GC, our code, ...; on-cpu/on-cpu-profile.ts). Writes on-cpu.md and on-cpu.json under
 * bench/results/<timestamp>-on-cpu/.
 *
 *   npm run bench:on-cpu
 *   BENCH_ONCPU_SIZE=100000 BENCH_ONCPU_SCENARIO='GET /projects/:id' BENCH_ONCPU_CONCURRENCY=32 BENCH_ONCPU_SECONDS=10 npm run bench:on-cpu
 *
 * Needs Linux's `perf` (Debian: `apt-get install linux-perf`) and the right to sample every CPU (root, or
 * kernel.perf_event_paranoid ≤ 0). Not part of `npm test`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { benchInfra } from './bench-kit';
import { REPO_ROOT } from '../infra';
import { startStack } from '../stack';
import { onCpuProfile, onCpuTable, parsePerfScript } from './on-cpu/on-cpu-profile';
import { createMember } from './suite/bench-member';
import { httpLoad, warmUp } from './suite/load';
import { OFFSET_FILTERED, SCENARIOS, type ScenarioContext } from './suite/scenarios';
import { seedProjects } from './suite/seed-projects';

const HZ = 999;

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

/** Runs `perf` with `args`; rejects with its output when it fails. */
function perf(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('perf', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out).toString()) : reject(new Error(`perf ${args[0]} exited ${code}: ${err.slice(-500)}`))));
  });
}

async function main(): Promise<void> {
  if (spawnSync('perf', ['--version']).status !== 0) {
    throw new Error('perf is not installed: on Debian `apt-get install linux-perf` (root, or kernel.perf_event_paranoid <= 0, to sample every CPU)');
  }
  const size = setting('BENCH_ONCPU_SIZE', 100_000);
  const connections = setting('BENCH_ONCPU_CONCURRENCY', 32);
  const seconds = setting('BENCH_ONCPU_SECONDS', 10);
  const warmupSeconds = setting('BENCH_ONCPU_WARMUP_SECONDS', 25);
  const scenarioName = process.env.BENCH_ONCPU_SCENARIO || OFFSET_FILTERED;
  const scenario = SCENARIOS.find((s) => s.name === scenarioName);
  if (!scenario) throw new Error(`BENCH_ONCPU_SCENARIO: no scenario ${JSON.stringify(scenarioName)} (one of: ${SCENARIOS.map((s) => s.name).join('; ')})`);

  const infra = await benchInfra();
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-oncpu-'));
  // --perf-basic-prof also starts V8's code log, by default a file per process in the working directory (the repo).
  const perfFlags = (service: string) => ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${path.join(work, `v8-${service}.log`)}`];
  const stack = await startStack({ name: 'bench_oncpu', nodeFlags: { gateway: perfFlags('gateway'), projects: perfFlags('projects') } });
  const pids = stack.pids();
  try {
    const member = await createMember(stack);
    const db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
    const namespaces = 1000;
    const seeded = await seedProjects(db, stack, { projects: size, namespaces, memberId: member.id }).finally(() => db.end());
    console.log(`seeded ${size} projects in ${(seeded.ms / 1000).toFixed(1)} s`);
    const ctx: ScenarioContext = { url: stack.url, rootToken: stack.rootToken, memberToken: member.token, size, namespaces, approveProjectId: 0, firstRequesterId: 0 };
    const load = scenario.load(ctx);
    // Warmed until V8 has compiled the hot path: samples of its compiler threads would stand for startup, not requests.
    await warmUp(load, connections, warmupSeconds);

    const data = path.join(work, 'perf.data');
    const recording = perf(['record', '-e', 'cpu-clock', '-F', String(HZ), '-a', '-g', '-o', data, '--', 'sleep', String(seconds)]);
    // A perf that fails at once (no right to sample every CPU) is reported after the load, not as an unhandled rejection
    // that would end the process before the stack is stopped.
    recording.catch(() => undefined);
    const measured = await httpLoad(load, connections, seconds, 0);
    await recording;
    const script = await perf(['script', '-i', data, '-F', 'comm,pid,tid,ip,sym']);
    const roles = new Map<number, string>([[process.pid, 'autocannon (this process)']]);
    for (const [service, pid] of Object.entries(pids)) roles.set(pid, service);
    const node = new Set([pids.gateway, pids.projects].filter((p): p is number => p !== undefined));
    const profile = onCpuProfile(parsePerfScript(script), roles, node);

    const table = onCpuTable(profile, HZ, measured.requests);
    const heading = `${scenario.name} at ${size.toLocaleString('en-US')} projects, c=${connections}, ${seconds} s: ${measured.rps.toFixed(0)} req/s, p50 ${measured.p50.toFixed(1)} ms, p90 ${measured.p90.toFixed(1)} ms; ${profile.samples} samples at ${HZ} Hz on ${os.cpus().length} CPUs`;
    console.log(`\n${heading}\n\n${table}\n`);
    const dir = path.join(process.env.BENCH_RESULTS_DIR ?? path.join(REPO_ROOT, 'bench', 'results'), `${new Date().toISOString().replace(/[:.]/g, '-')}-on-cpu`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'on-cpu.md'), `# On-CPU profile\n\n${heading}\n\n${table}\n`);
    writeFileSync(path.join(dir, 'on-cpu.json'), JSON.stringify({ scenario: scenario.name, size, connections, seconds, hz: HZ, load: measured, profile }, null, 2));
    console.log(`written to ${path.relative(process.cwd(), dir)}/ (on-cpu.md, on-cpu.json)`);
  } finally {
    await stack.stop();
    rmSync(work, { recursive: true, force: true });
    // The symbol maps --perf-basic-prof wrote for the two services (/tmp/perf-<pid>.map).
    for (const pid of [pids.gateway, pids.projects]) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
