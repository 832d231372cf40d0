import type { HostCpu } from './host-cpu';
import type { ServiceUsage } from './service-metrics';

/** One measured run: a scenario (or baseline) at one data size and one concurrency level. */
export interface Measurement {
  scenario: string;
  /** baseline: bare http, direct gRPC, SQL alone; api: through the gateway. */
  kind: 'baseline' | 'api';
  /** Growth scenarios are compared across sizes (p50 at the largest over p50 at the smallest). */
  growth: boolean;
  /** Seeded projects. */
  size: number;
  concurrency: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Responses by HTTP status (autocannon scenarios). */
  statuses?: Record<string, number>;
  /** Per service: peak RSS and CPU during the run (api scenarios and the gRPC baseline). */
  services?: Record<string, ServiceUsage>;
  /** The whole machine during the run (warm-up included): busy and stolen shares of all cores (Linux only). */
  host?: HostCpu;
  /**
   * A measurement a target is checked against is run BENCH_TARGET_REPEATS times (targets.ts, feedsTarget); the one with
   * the median p50 is the measurement, and every repeat's figures, in the order run, are kept here.
   */
  repeats?: Pick<Measurement, 'rps' | 'p50' | 'p90'>[];
  /**
   * Measured on a second stack seeded with this (the smallest) size, its repeats alternated with those of the same
   * scenario and concurrency at the largest size (run-suite.ts, `alternated`): the smallest size's side of a growth
   * ratio taken under the same conditions as the largest's. Not part of the per-size tables (the first stage's run is).
   */
  paired?: boolean;
  /**
   * For a paired bare-http ceiling: the scenario whose repeats it alternated with (run-suite.ts), so that the scenario's
   * share of the ceiling is taken round by round under the same drift of the machine's speed (suite-run.ts, ceilingShare).
   */
  pairedWith?: string;
}

export type LoadNumbers = Pick<Measurement, 'requests' | 'rps' | 'p50' | 'p90' | 'p99' | 'errors' | 'non2xx' | 'statuses'>;

/**
 * Of several runs of one measurement, the one with the median p50 (the lower middle one of an even number), whole: its
 * req/s, percentiles, host and service figures belong together. Each repeat's req/s, p50 and p90 go with it.
 */
export function medianRun<T extends Pick<Measurement, 'rps' | 'p50' | 'p90'>>(runs: T[]): T & { repeats: Pick<Measurement, 'rps' | 'p50' | 'p90'>[] } {
  if (!runs.length) throw new Error('medianRun: no runs');
  const median = lowerMiddle([...runs].sort((a, b) => a.p50 - b.p50));
  return { ...median, repeats: runs.map(({ rps, p50, p90 }) => ({ rps, p50, p90 })) };
}

/** The middle value of numbers (the lower middle of an even count), as medianRun picks its run. */
export function median(xs: readonly number[]): number {
  return lowerMiddle([...xs].sort((a, b) => a - b));
}

const lowerMiddle = <T>(sorted: readonly T[]): T => sorted[Math.floor((sorted.length - 1) / 2)]!;

/**
 * `n` runs of each of two measurements, alternated (first, second, first, …), and the median run of each side
 * (medianRun): two sides compared under the same drift of the machine's speed rather than minutes apart.
 */
export async function alternated<T extends Pick<Measurement, 'rps' | 'p50' | 'p90'>>(n: number, first: () => Promise<T>, second: () => Promise<T>) {
  const [a, b]: [T[], T[]] = [[], []];
  for (let i = 0; i < n; i++) {
    a.push(await first());
    b.push(await second());
  }
  return [medianRun(a), medianRun(b)] as const;
}
