/**
 * Latency and throughput of GET /api/v4/projects/:id through the whole stack (gateway → gRPC → projects →
 * PostgreSQL), and, in the same run, of a bare Node `http` server returning the same JSON (the floor this machine
 * allows). Prints one table.
 *
 *   npm run bench                          boots its own stack (needs infra: deploy/local/infra.sh up)
 *   GITLAB_URL=http://127.0.0.1:8080 GITLAB_TOKEN=... npm run bench      against a running stack (npm start)
 *   BENCH_CALLS=1000 BENCH_CONNECTIONS=32 BENCH_SECONDS=10 npm run bench
 *
 * Phases: BENCH_CALLS sequential calls on one keep-alive connection (after 100 warm-up); then autocannon with
 * BENCH_CONNECTIONS connections for BENCH_SECONDS against the stack; then the same against the bare server.
 */
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { benchInfra, percentile } from './bench-kit';
import { startStack, type RunningStack } from '../stack';


interface LoadResult {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<LoadResult> {
  // Short warm-up (JIT, pools, caches), then the measured run.
  await autocannon({ url, headers, connections, duration: 2 });
  const r = await autocannon({ url, headers, connections, duration: seconds });
  return { rps: r.requests.average, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

/** A bare Node http server in its own process (as the gateway is), answering every request with `body`. */
async function bareServer(body: string): Promise<{ url: string; stop(): void }> {
  const script = `
    const body = Buffer.from(process.env.BENCH_BODY);
    const server = require('node:http').createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    });
    server.keepAliveTimeout = 65000;
    server.listen(0, '127.0.0.1', () => process.send(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, BENCH_BODY: body }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve(Number(m)));
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill('SIGTERM') };
}

async function main(): Promise<void> {
  const calls = Number(process.env.BENCH_CALLS ?? 1000);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  let stack: RunningStack | undefined;
  let base = process.env.GITLAB_URL;
  let token = process.env.GITLAB_TOKEN ?? process.env.GITLAB_ROOT_TOKEN;
  if (!base || !token) {
    await benchInfra();
    // As `npm start` runs it: info logs, one access-log line per request.
    stack = await startStack({ name: 'bench', env: { LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'info' } });
    base = stack.url;
    token = stack.rootToken;
  }
  const api = `${base.replace(/\/+$/, '')}/api/v4`;
  const headers = { 'PRIVATE-TOKEN': token };
  const f = (n: number) => n.toFixed(2);
  try {
    const created = await fetch(`${api}/projects`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `bench-${Date.now()}` }),
    });
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: number };
    const projectUrl = `${api}/projects/${id}`;
    let body = '';
    const get = async () => {
      const res = await fetch(projectUrl, { headers });
      if (res.status !== 200) throw new Error(`GET returned ${res.status}`);
      body = await res.text();
    };

    for (let i = 0; i < 100; i++) await get(); // warm-up: JIT, pools, auth cache
    const samples: number[] = [];
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) {
      const s = process.hrtime.bigint();
      await get();
      samples.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
    const totalMs = Number(process.hrtime.bigint() - t0) / 1e6;
    samples.sort((a, b) => a - b);
    console.log(`GET /projects/:id x ${calls} sequential (after 100 warm-up), one keep-alive connection`);
    console.log(`  median ${f(percentile(samples, 0.5))} ms  p90 ${f(percentile(samples, 0.9))} ms  p99 ${f(percentile(samples, 0.99))} ms  ` +
      `${((calls / totalMs) * 1000).toFixed(0)} requests/s`);

    const stackLoad = await load(projectUrl, headers, connections, seconds);
    const bare = await bareServer(body);
    let bareLoad: LoadResult;
    try {
      bareLoad = await load(bare.url, {}, connections, seconds);
    } finally {
      bare.stop();
    }
    const row = (name: string, r: LoadResult) =>
      `  ${name.padEnd(28)} ${r.rps.toFixed(0).padStart(7)} ${f(r.p50).padStart(8)} ${f(r.p90).padStart(8)} ${f(r.p99).padStart(8)}` +
      `${r.errors || r.non2xx ? `   (errors ${r.errors}, non-2xx ${r.non2xx})` : ''}`;
    console.log(`GET /projects/:id, autocannon ${connections} connections x ${seconds} s (after 2 s warm-up), response ${body.length} bytes`);
    console.log(`  ${'target'.padEnd(28)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
    console.log(row('stack (gateway → projects)', stackLoad));
    console.log(row('bare node http, same JSON', bareLoad));
    console.log(`  stack / bare: ${((stackLoad.rps / bareLoad.rps) * 100).toFixed(1)}% of the throughput, p90 ${(stackLoad.p90 / Math.max(bareLoad.p90, 0.01)).toFixed(1)}x`);
    if (stackLoad.errors || stackLoad.non2xx) process.exitCode = 1;
  } finally {
    await stack?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
