import { provideInfra } from '../infra';

/** The q-quantile (0..1) of ascending samples. */
export function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** "p50 … ms  p90 … ms  p99 … ms" of samples in milliseconds (any order). */
export function latencySummary(samples: readonly number[], digits = 2): string {
  const s = [...samples].sort((a, b) => a - b);
  return `p50 ${percentile(s, 0.5).toFixed(digits)} ms  p90 ${percentile(s, 0.9).toFixed(digits)} ms  p99 ${percentile(s, 0.99).toFixed(digits)} ms`;
}

/**
 * Infrastructure for a benchmark that boots its own stack, exported to the stack: the local processes' durable
 * database (not the tests'), so that writes are measured with their WAL flush.
 */
export async function benchInfra(): Promise<Awaited<ReturnType<typeof provideInfra>>> {
  const infra = await provideInfra('benchmarks');
  process.env.DATABASE_URL = infra.databaseUrl;
  process.env.REDIS_URL = infra.redisUrl;
  process.env.KAFKA_BROKERS = infra.kafkaBrokers.join(',');
  return infra;
}
