/**
 * GET /api/v4/projects/:id/snapshot through the whole stack (gateway → gRPC server-streaming → repo-admin reading the
 * bare repository from disk): throughput, and the resident memory of repo-admin and the gateway while a large snapshot
 * streams (it must stay flat: nothing buffers the repository).
 *
 *   npm run bench:snapshot                   boots its own stack from the built dist/ (needs infra: deploy/local/infra.sh up)
 *   BENCH_SNAPSHOT_MB=200 BENCH_SNAPSHOT_RUNS=3 BENCH_SNAPSHOT_SLOW_MBPS=50 npm run bench:snapshot
 *
 * The repository: BENCH_SNAPSHOT_MB of incompressible blobs (4 MiB each, one commit) written with `git fast-import`
 * straight into the project's bare repository on repo-admin's storage, so the pack is about that size. Each run reads
 * the whole answer as fast as the client can while /metrics of repo-admin and the gateway is sampled every 50 ms
 * (`process_resident_memory_bytes`); the floor is `tar` of the same files from disk into a pipe on the same machine.
 * Then one client reading at BENCH_SNAPSHOT_SLOW_MBPS (0: skip): with back-pressure end to end it takes size/rate and
 * memory stays where it was (repo-admin reads the disk only as fast as that client reads).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { benchInfra } from './bench-kit';
import { startStack } from '../stack';

const MB = 1e6;
const BLOB = 4 * 1024 * 1024;

const hashedDir = (root: string, id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return path.join(root, `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`);
};

/** Writes `bytes` of random blobs and one commit on main into a bare repository with `git fast-import` (streamed). */
async function fillRepository(dir: string, bytes: number): Promise<void> {
  const child = spawn('git', ['-C', dir, '-c', 'core.compression=0', '-c', 'pack.compression=0', 'fast-import', '--quiet'], { stdio: ['pipe', 'inherit', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const write = async (chunk: Buffer | string) => {
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
  };
  const blobs = Math.max(1, Math.ceil(bytes / BLOB));
  for (let i = 1; i <= blobs; i++) {
    await write(`blob\nmark :${i}\ndata ${BLOB}\n`);
    await write(randomBytes(BLOB));
    await write('\n');
  }
  const message = 'Bench data\n';
  await write(`commit refs/heads/main\ncommitter Bench <bench@example.com> ${Math.floor(Date.now() / 1000)} +0000\ndata ${message.length}\n${message}`);
  for (let i = 1; i <= blobs; i++) await write(`M 100644 :${i} data/blob-${String(i).padStart(4, '0')}.bin\n`);
  await write('\n');
  child.stdin.end();
  if ((await exited) !== 0) throw new Error('git fast-import failed');
}

/** Polls `process_resident_memory_bytes` of a /metrics URL until stopped; the largest value seen. */
function rssSampler(url: string): { stop(): Promise<number>; current(): Promise<number> } {
  const read = async () => {
    const text = await (await fetch(url)).text();
    const m = /^process_resident_memory_bytes(?:\{[^}]*\})? (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
    return m ? Number(m[1]) : 0;
  };
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, await read().catch(() => 0));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    current: read,
    async stop() {
      running = false;
      await loop;
      return Math.max(peak, await read().catch(() => 0));
    },
  };
}

/** Reads a whole response body, counting bytes (nothing kept); with `mbps`, no faster than that (a slow client). */
async function drain(res: Response, mbps = 0): Promise<number> {
  let n = 0;
  const t0 = Date.now();
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return n;
    n += value.byteLength;
    const ahead = mbps > 0 ? n / (mbps * MB) * 1000 - (Date.now() - t0) : 0;
    if (ahead > 5) await new Promise((r) => setTimeout(r, ahead));
  }
}

/** `tar` of the snapshot's files from disk into a pipe, counted: what this machine allows without any service. */
async function tarFloor(dir: string): Promise<{ bytes: number; seconds: number }> {
  const t0 = process.hrtime.bigint();
  const child = spawn('tar', ['-cf', '-', '-C', dir, 'HEAD', 'refs', 'objects'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let bytes = 0;
  for await (const chunk of child.stdout) bytes += (chunk as Buffer).length;
  await new Promise((r) => child.on('close', r));
  return { bytes, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

async function main(): Promise<void> {
  const sizeMb = Number(process.env.BENCH_SNAPSHOT_MB ?? 200);
  const runs = Number(process.env.BENCH_SNAPSHOT_RUNS ?? 3);
  const slowMbps = Number(process.env.BENCH_SNAPSHOT_SLOW_MBPS ?? 50);
  await benchInfra();
  const stack = await startStack({ name: 'bench_snapshot', env: { LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'info' } });
  const api = stack.apiUrl;
  const headers = { 'PRIVATE-TOKEN': stack.rootToken };
  const f = (n: number, d = 1) => n.toFixed(d);
  try {
    const created = await fetch(`${api}/projects`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: `bench-snapshot-${Date.now()}` }) });
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: number };
    const dir = hashedDir(stack.storageRoot, id);
    const deadline = Date.now() + 30_000;
    while (!existsSync(path.join(dir, 'HEAD'))) {
      if (Date.now() > deadline) throw new Error('the repository was not created');
      await new Promise((r) => setTimeout(r, 100));
    }
    const tf = process.hrtime.bigint();
    await fillRepository(dir, sizeMb * MB);
    console.log(`repository: ${sizeMb} MB of random blobs written with git fast-import in ${f(Number(process.hrtime.bigint() - tf) / 1e9)} s`);

    const floor = await tarFloor(dir);
    console.log(`floor: tar of the same files into a pipe: ${f(floor.bytes / MB)} MB in ${f(floor.seconds, 2)} s = ${f(floor.bytes / MB / floor.seconds)} MB/s`);

    const repoAdminRss = rssSampler(stack.metricsUrls.repoAdmin);
    const gatewayRss = rssSampler(stack.metricsUrls.gateway);
    const idle = { repoAdmin: await repoAdminRss.current(), gateway: await gatewayRss.current() };
    const results: Array<{ bytes: number; seconds: number }> = [];
    for (let i = 0; i < runs; i++) {
      const t0 = process.hrtime.bigint();
      const res = await fetch(`${api}/projects/${id}/snapshot`, { headers });
      if (res.status !== 200) throw new Error(`snapshot returned ${res.status}: ${await res.text()}`);
      const bytes = await drain(res);
      results.push({ bytes, seconds: Number(process.hrtime.bigint() - t0) / 1e9 });
    }
    const peak = { repoAdmin: await repoAdminRss.stop(), gateway: await gatewayRss.stop() };

    console.log(`GET /projects/:id/snapshot x ${runs} through the gateway (one client reading as fast as it can)`);
    for (const [i, r] of results.entries()) console.log(`  run ${i + 1}: ${f(r.bytes / MB)} MB in ${f(r.seconds, 2)} s = ${f(r.bytes / MB / r.seconds)} MB/s`);
    const speeds = results.map((r) => r.bytes / MB / r.seconds).sort((a, b) => a - b);
    console.log(`  median ${f(speeds[Math.floor(speeds.length / 2)]!)} MB/s (${f((speeds[Math.floor(speeds.length / 2)]! / (floor.bytes / MB / floor.seconds)) * 100)}% of the tar floor)`);
    console.log('resident memory (process_resident_memory_bytes, sampled every 50 ms)');
    console.log(`  repo-admin: idle ${f(idle.repoAdmin / 2 ** 20)} MiB, peak while streaming ${f(peak.repoAdmin / 2 ** 20)} MiB (+${f((peak.repoAdmin - idle.repoAdmin) / 2 ** 20)} MiB)`);
    console.log(`  gateway:    idle ${f(idle.gateway / 2 ** 20)} MiB, peak while streaming ${f(peak.gateway / 2 ** 20)} MiB (+${f((peak.gateway - idle.gateway) / 2 ** 20)} MiB)`);
    if (slowMbps > 0) {
      const slowAdmin = rssSampler(stack.metricsUrls.repoAdmin);
      const slowGateway = rssSampler(stack.metricsUrls.gateway);
      const t0 = process.hrtime.bigint();
      const res = await fetch(`${api}/projects/${id}/snapshot`, { headers });
      const bytes = await drain(res, slowMbps);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const slowPeak = { repoAdmin: await slowAdmin.stop(), gateway: await slowGateway.stop() };
      results.push({ bytes, seconds: Math.max(seconds, 1e-9) });
      console.log(`slow client reading at ${slowMbps} MB/s: ${f(bytes / MB)} MB in ${f(seconds, 2)} s (${f(bytes / MB / seconds)} MB/s); peak resident ` +
        `memory repo-admin ${f(slowPeak.repoAdmin / 2 ** 20)} MiB, gateway ${f(slowPeak.gateway / 2 ** 20)} MiB`);
    }
    if (results.some((r) => r.bytes < sizeMb * MB)) {
      console.error('a snapshot was smaller than the repository');
      process.exitCode = 1;
    }
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
