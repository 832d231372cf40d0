/**
 * Latency of GET /api/v4/projects/:id through the whole stack (gateway → gRPC → projects →
 * PostgreSQL), N sequential calls on one keep-alive connection. Prints median/p90/p99.
 *
 *   npm run bench                          boots its own stack (needs infra: deploy/local/infra.sh up)
 *   GITLAB_URL=http://127.0.0.1:8080 GITLAB_TOKEN=... npm run bench      against a running stack
 *   BENCH_CALLS=5000 BENCH_CONCURRENCY=32 npm run bench
 * Then the same request from BENCH_CONCURRENCY (16) concurrent callers: throughput and percentiles.
 */
import { provideInfra } from '../infra';
import { startStack, type RunningStack } from '../stack';

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const calls = Number(process.env.BENCH_CALLS ?? 1000);
  let stack: RunningStack | undefined;
  let base = process.env.GITLAB_URL;
  let token = process.env.GITLAB_TOKEN ?? process.env.GITLAB_ROOT_TOKEN;
  if (!base || !token) {
    const infra = await provideInfra();
    process.env.DATABASE_URL = infra.databaseUrl;
    process.env.REDIS_URL = infra.redisUrl;
    process.env.KAFKA_BROKERS = infra.kafkaBrokers.join(',');
    stack = await startStack({ name: 'bench' });
    base = stack.url;
    token = stack.rootToken;
  }
  const api = `${base.replace(/\/+$/, '')}/api/v4`;
  const headers = { 'PRIVATE-TOKEN': token };
  try {
    const created = await fetch(`${api}/projects`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `bench-${Date.now()}` }),
    });
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: number };
    const get = async () => {
      const res = await fetch(`${api}/projects/${id}`, { headers });
      if (res.status !== 200) throw new Error(`GET returned ${res.status}`);
      await res.arrayBuffer();
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
    const f = (n: number) => n.toFixed(2);
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    console.log(`GET /projects/:id x ${calls} sequential (after 100 warm-up)`);
    console.log(`  median ${f(percentile(samples, 0.5))} ms  p90 ${f(percentile(samples, 0.9))} ms  p99 ${f(percentile(samples, 0.99))} ms  ` +
      `min ${f(samples[0]!)} ms  max ${f(samples[samples.length - 1]!)} ms  mean ${f(mean)} ms`);
    console.log(`  ${((calls / totalMs) * 1000).toFixed(0)} requests/s on one connection`);

    const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
    const concurrent: number[] = [];
    let next = 0;
    const c0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < calls) {
          const s = process.hrtime.bigint();
          await get();
          concurrent.push(Number(process.hrtime.bigint() - s) / 1e6);
        }
      }),
    );
    const cMs = Number(process.hrtime.bigint() - c0) / 1e6;
    concurrent.sort((a, b) => a - b);
    console.log(`GET /projects/:id x ${calls} from ${concurrency} concurrent callers`);
    console.log(`  ${((calls / cMs) * 1000).toFixed(0)} requests/s  median ${f(percentile(concurrent, 0.5))} ms  p90 ${f(percentile(concurrent, 0.9))} ms  ` +
      `p99 ${f(percentile(concurrent, 0.99))} ms`);
  } finally {
    await stack?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
