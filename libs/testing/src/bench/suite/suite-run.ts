import { median, type Measurement } from './measurement';

// One run of the suite as results.json keeps it, and the figures taken across its measurements.

export const BARE = 'baseline: bare node http (ceiling)';
export const GRPC = 'baseline: gRPC projects GetProject';
export const SQL = 'baseline: SQL alone (GetProject SELECT)';

export interface SuiteRun {
  startedAt: string;
  finishedAt: string;
  machine: { cpus: string; cores: number; memoryGb: number; node: string; platform: string };
  config: { sizes: number[]; concurrency: number[]; seconds: number; warmupSeconds: number; namespaces: number; stackWarmupSeconds?: number; targetRepeats?: number };
  seeding: { size: number; ms: number }[];
  measurements: Measurement[];
}

export interface GrowthRow {
  scenario: string;
  concurrency: number;
  p50AtMin: number;
  p50AtMax: number;
  /**
   * p50 at the largest size over p50 at the smallest. For a paired row: the median of the rounds' ratios (each round a
   * run at the smallest size and the run right after it at the largest), so that a change of the machine's speed
   * between rounds cancels within each round rather than landing on one side of the ratio.
   */
  ratio: number;
  /** For a paired row: each round's ratio, in the order run. */
  roundRatios?: number[];
  /**
   * Whether the smallest size's p50 is the paired one (measured alternately with the largest's, Measurement.paired);
   * else it is the first stage's, minutes before the largest size's.
   */
  paired: boolean;
  /** With a paired row: p50 at the smallest size in its own stage, and the ratio it gives (for comparison). */
  stageP50AtMin?: number;
  stageRatio?: number;
}

/**
 * p50 at the largest size over p50 at the smallest, per growth scenario and concurrency. Where the smallest size was
 * also measured paired with the largest (on a second stack, alternately), that measurement is the denominator: the
 * stages run 15–30 minutes apart, and this VM's speed moves by more than the target's 20% in that time.
 */
export function growthRows(run: SuiteRun): GrowthRow[] {
  const sizes = run.config.sizes;
  if (sizes.length < 2) return [];
  const [min, max] = [Math.min(...sizes), Math.max(...sizes)];
  const rows: GrowthRow[] = [];
  for (const m of run.measurements.filter((x) => x.growth && x.size === min && !x.paired)) {
    const big = run.measurements.find((x) => x.scenario === m.scenario && x.concurrency === m.concurrency && x.size === max && !x.paired);
    if (!big) continue;
    const pair = pairedAt(run, m.scenario, m.concurrency);
    if (!pair) {
      rows.push({ scenario: m.scenario, concurrency: m.concurrency, p50AtMin: m.p50, p50AtMax: big.p50, ratio: big.p50 / m.p50, paired: false });
      continue;
    }
    const rounds = roundRatios(pair, big, 'p50');
    rows.push({
      scenario: m.scenario, concurrency: m.concurrency, p50AtMin: pair.p50, p50AtMax: big.p50,
      ratio: rounds ? median(rounds) : big.p50 / pair.p50, ...(rounds ? { roundRatios: rounds } : {}),
      paired: true, stageP50AtMin: m.p50, stageRatio: big.p50 / m.p50,
    });
  }
  return rows;
}

/** Each round's `field` of the second measurement over the first's just before it, when both kept their repeats. */
function roundRatios(first: Measurement, second: Measurement, field: 'p50' | 'rps'): number[] | undefined {
  const [a, b] = [first.repeats, second.repeats];
  if (!a?.length || a.length !== b?.length) return undefined;
  return a.map((r, i) => b[i]![field] / r[field]);
}

/** The smallest size's paired measurement of a scenario at a concurrency, if the run made one. */
export function pairedAt(run: SuiteRun, scenario: string, concurrency: number): Measurement | undefined {
  return run.measurements.find((x) => x.paired && x.scenario === scenario && x.concurrency === concurrency);
}

/**
 * The bare-http ceiling of a stage at (size, concurrency): the one measured at that size (every size has its own since
 * 2026-11-28), else the one of any size (results of older runs measured it once, at the first size). Not a paired one.
 */
export function ceilingFor(run: SuiteRun, size: number, concurrency: number): Measurement | undefined {
  const bare = run.measurements.filter((m) => m.scenario === BARE && m.concurrency === concurrency && !m.paired);
  return bare.find((m) => m.size === size) ?? bare[0];
}

/** The ceiling measured alternately with a scenario's repeats at (size, concurrency), if the run made one. */
export function pairedCeilingAt(run: SuiteRun, scenario: string, size: number, concurrency: number): Measurement | undefined {
  return run.measurements.find((m) => m.paired && m.scenario === BARE && m.pairedWith === scenario && m.size === size && m.concurrency === concurrency);
}

export interface CeilingShare {
  /** The scenario's req/s over the ceiling's: for a paired ceiling, the median of the rounds' shares. */
  share: number;
  /** With a paired ceiling: each round's share (the ceiling's run, then the scenario's right after it), in the order run. */
  rounds?: number[];
  paired: boolean;
  /** With a paired ceiling: the share of the stage's ceiling, measured minutes before (for comparison). */
  stageShare?: number;
}

/**
 * A measurement's req/s as a share of the bare-http ceiling. Where the ceiling was also measured alternately with the
 * measurement's repeats (pairedCeilingAt), the share is the median of the rounds' shares: the stage's ceiling is
 * measured minutes before, and a change of this VM's speed in between moved the share by as much as the target's
 * margin (bench/README.md, "Run 28").
 */
export function ceilingShare(run: SuiteRun, m: Measurement): CeilingShare | undefined {
  const stage = ceilingFor(run, m.size, m.concurrency);
  const stageShare = stage ? m.rps / stage.rps : undefined;
  const pair = pairedCeilingAt(run, m.scenario, m.size, m.concurrency);
  if (!pair) return stageShare === undefined ? undefined : { share: stageShare, paired: false };
  const rounds = roundRatios(pair, m, 'rps');
  return {
    share: rounds ? median(rounds) : m.rps / pair.rps, ...(rounds ? { rounds } : {}),
    paired: true, ...(stageShare === undefined ? {} : { stageShare }),
  };
}

