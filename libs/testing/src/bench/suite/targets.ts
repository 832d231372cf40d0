import type { Measurement } from './measurement';
import { BARE, ceilingShare, growthRows, pairedAt, type CeilingShare, type SuiteRun } from './suite-run';
import { ID_READ, KEYSET_DEEP, OFFSET_FILTERED, PATH_READ } from './scenarios';

/**
 * The performance targets of the benchmark issue (bench/README.md, "Targets"), checked against one run: each check is
 * one size and concurrency level with what was measured there, so a report says which held and under what steal.
 * A target the run did not measure (a scenario or size left out) has no check.
 */
export interface TargetCheck {
  target: string;
  /** The size the check is at; for a growth check, the largest size (compared with the smallest). */
  size: number;
  concurrency: number;
  measured: string;
  met: boolean;
  /** The machine's CPU taken by the hypervisor during the measurement(s) behind the check, when recorded (highest). */
  stealPercent?: number;
}

/**
 * Whether a measurement (scenario, size, concurrency) is one targetChecks reads, in a run of these sizes and levels:
 * the suite repeats those (BENCH_TARGET_REPEATS).
 */
export function feedsTarget(scenario: string, size: number, concurrency: number, config: { sizes: number[]; concurrency: number[] }): boolean {
  const top = Math.max(...config.concurrency);
  if (scenario === ID_READ || scenario === PATH_READ || scenario === BARE) return concurrency === top;
  if (scenario === OFFSET_FILTERED) return size === OFFSET_TARGET.size;
  // The smallest size's side of the keyset ratio is its paired measurement (pairsGrowth), repeated as it alternates.
  if (scenario === KEYSET_DEEP) return config.sizes.length > 1 && size === Math.max(...config.sizes);
  return false;
}

/**
 * Whether a growth scenario's ratio is checked by a target, and so is measured paired at the largest size: its smallest
 * size again, on a second stack seeded with it, each repeat alternated with one at the largest size (run-suite.ts).
 */
export function pairsGrowth(scenario: string): boolean {
  return scenario === KEYSET_DEEP;
}

/**
 * Whether a scenario's share of the bare-http ceiling is checked by a target, and so the ceiling is measured paired with
 * it: one ceiling run before each of its repeats at the highest concurrency (run-suite.ts).
 */
export function pairsCeiling(scenario: string): boolean {
  return scenario === ID_READ || scenario === PATH_READ;
}

export const ID_TARGET = { rps: 2_000, p90Ms: 20, ofCeiling: 0.1 };
export const OFFSET_TARGET = { size: 100_000, p90Ms: 50 };
export const KEYSET_TARGET = { ratio: 1.2 };

const int = (x: number) => Math.round(x).toLocaleString('en-US');
/** ", median of 3" where the measurement was repeated. */
const of = (...ms: (Measurement | undefined)[]) => {
  const n = Math.max(0, ...ms.map((m) => m?.repeats?.length ?? 0));
  return n > 1 ? `, median of ${n}` : '';
};
const steal = (...ms: (Measurement | undefined)[]) => {
  const s = ms.flatMap((m) => (m?.host ? [m.host.stealPercent] : []));
  return s.length ? Math.max(...s) : undefined;
};

/** "0.120"; for a paired ceiling "0.120 of the paired ceiling (median of the rounds' 0.118 / 0.120 / 0.125), 0.110 of the stage's". */
function shareText(s: CeilingShare): string {
  if (!s.paired) return s.share.toFixed(3);
  const rounds = s.rounds ? ` (median of the rounds' ${s.rounds.map((r) => r.toFixed(3)).join(' / ')})` : '';
  return `${s.share.toFixed(3)} of the paired ceiling${rounds}${s.stageShare === undefined ? '' : `, ${s.stageShare.toFixed(3)} of the stage's`}`;
}

export function targetChecks(run: SuiteRun): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const at = (scenario: string, size: number, c: number) =>
    run.measurements.find((m) => m.scenario === scenario && m.size === size && m.concurrency === c && !m.paired);

  // Throughput needs connections: the single-project read, by id and by path, is held to its target at the run's
  // highest concurrency.
  const top = Math.max(...run.config.concurrency);
  for (const scenario of [ID_READ, PATH_READ]) for (const size of run.config.sizes) {
    const m = at(scenario, size, top);
    if (!m) continue;
    const share = ceilingShare(run, m);
    checks.push({
      target: `${scenario}: ≥ ${int(ID_TARGET.rps)} req/s, p90 < ${ID_TARGET.p90Ms} ms, ≥ ${ID_TARGET.ofCeiling.toFixed(2)} of the ceiling`,
      size, concurrency: top,
      measured: `${int(m.rps)} req/s, p90 ${m.p90.toFixed(1)} ms, ${share ? shareText(share) : 'no ceiling measured'}${of(m)}`,
      met: m.rps >= ID_TARGET.rps && m.p90 < ID_TARGET.p90Ms && (share?.share ?? NaN) >= ID_TARGET.ofCeiling,
      stealPercent: steal(m),
    });
  }

  for (const c of run.config.concurrency) {
    const m = at(OFFSET_FILTERED, OFFSET_TARGET.size, c);
    if (!m) continue;
    checks.push({
      target: `${OFFSET_FILTERED}: p90 < ${OFFSET_TARGET.p90Ms} ms at ${int(OFFSET_TARGET.size)} projects`,
      size: OFFSET_TARGET.size, concurrency: c,
      measured: `p90 ${m.p90.toFixed(1)} ms at ${int(m.rps)} req/s${of(m)}`,
      met: m.p90 < OFFSET_TARGET.p90Ms,
      stealPercent: steal(m),
    });
  }

  const [min, max] = [Math.min(...run.config.sizes), Math.max(...run.config.sizes)];
  for (const g of growthRows(run).filter((r) => r.scenario === KEYSET_DEEP)) {
    const small = g.paired ? pairedAt(run, KEYSET_DEEP, g.concurrency) : at(KEYSET_DEEP, min, g.concurrency);
    const large = at(KEYSET_DEEP, max, g.concurrency);
    checks.push({
      target: `${KEYSET_DEEP}: p50 at ${int(max)} ≤ ${KEYSET_TARGET.ratio} × p50 at ${int(min)} projects`,
      size: max, concurrency: g.concurrency,
      measured: g.roundRatios
        ? `${g.ratio.toFixed(2)} (median of the rounds' ${g.roundRatios.map((r) => r.toFixed(2)).join(' / ')}; p50 ${g.p50AtMax.toFixed(2)} / ${g.p50AtMin.toFixed(2)} ms, paired; ${g.stageRatio!.toFixed(2)} against the ${int(min)} stage)`
        : `${g.ratio.toFixed(2)} (${g.p50AtMax.toFixed(2)} / ${g.p50AtMin.toFixed(2)} ms${of(small, large)}${g.paired ? `, paired; ${g.stageRatio!.toFixed(2)} against the ${int(min)} stage` : ''})`,
      met: g.ratio <= KEYSET_TARGET.ratio,
      stealPercent: steal(small, large),
    });
  }
  return checks;
}

/** The checks as a Markdown section (none when the run measured no targeted scenario). */
export function targetsMarkdown(checks: TargetCheck[]): string[] {
  if (!checks.length) return [];
  const met = checks.filter((c) => c.met).length;
  return [
    '## Targets', '',
    `${met} of ${checks.length} checks met. Steal: the highest share of the machine's CPU the hypervisor took during the measurement(s) behind the check.`, '',
    '| target | size | conc. | measured | met | steal |', '|---|---:|---:|---|---|---:|',
    ...checks.map((c) => `| ${c.target} | ${int(c.size)} | ${c.concurrency} | ${c.measured} | ${c.met ? 'yes' : '**no**'} | ${c.stealPercent === undefined ? '' : `${c.stealPercent.toFixed(1)}%`} |`),
    '',
  ];
}
