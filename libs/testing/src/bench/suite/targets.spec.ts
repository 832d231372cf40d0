import { alternated, medianRun, type Measurement } from './measurement';
import { markdownReport } from './report';
import { ID_READ, KEYSET_DEEP, OFFSET_FILTERED, PATH_READ } from './scenarios';
import { BARE, type SuiteRun } from './suite-run';
import { feedsTarget, pairsCeiling, pairsGrowth, targetChecks, targetsMarkdown } from './targets';

const m = (scenario: string, size: number, concurrency: number, rps: number, p50: number, p90: number, steal?: number): Measurement => ({
  scenario, kind: scenario === BARE ? 'baseline' : 'api', growth: scenario !== BARE, size, concurrency, seconds: 1, requests: rps, rps, p50, p90,
  p99: p90, errors: 0, non2xx: 0, ...(steal === undefined ? {} : { host: { busyPercent: 90, stealPercent: steal } }),
});

const run = (measurements: Measurement[], sizes: number[], concurrency = [1, 32]): SuiteRun => ({
  startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z',
  machine: { cpus: 'cpu', cores: 2, memoryGb: 4, node: 'v24', platform: 'linux' },
  config: { sizes, concurrency, seconds: 1, warmupSeconds: 0, namespaces: 10 },
  seeding: sizes.map((size) => ({ size, ms: 5 })),
  measurements,
});

describe('targetChecks', () => {
  it('holds the single-project read to 2,000 req/s, p90 < 20 ms and 0.10 of its size’s ceiling at the highest concurrency', () => {
    const checks = targetChecks(run([
      m(BARE, 10_000, 32, 20_000, 1, 2), m(ID_READ, 10_000, 32, 2_100, 12, 19.9, 3.2), m(ID_READ, 10_000, 1, 300, 3, 4),
      m(BARE, 100_000, 32, 25_000, 1, 2), m(ID_READ, 100_000, 32, 2_300, 12, 18), // 0.092 of its own ceiling
      m(BARE, 1_000_000, 32, 20_000, 1, 2), m(ID_READ, 1_000_000, 32, 2_500, 12, 20), // p90 not under 20
    ], [10_000, 100_000, 1_000_000]));
    expect(checks.map(({ size, concurrency, met }) => ({ size, concurrency, met }))).toEqual([
      { size: 10_000, concurrency: 32, met: true },
      { size: 100_000, concurrency: 32, met: false },
      { size: 1_000_000, concurrency: 32, met: false },
    ]);
    expect(checks[0]).toMatchObject({ measured: '2,100 req/s, p90 19.9 ms, 0.105', stealPercent: 3.2 });
    expect(checks[1]!.measured).toBe('2,300 req/s, p90 18.0 ms, 0.092');
    expect(checks[2]!.stealPercent).toBeUndefined();
  });

  it('holds the read by path to the same target, each form checked on its own', () => {
    const checks = targetChecks(run([
      m(BARE, 10_000, 32, 20_000, 1, 2), m(ID_READ, 10_000, 32, 2_400, 10, 15), m(PATH_READ, 10_000, 32, 1_900, 14, 24), m(PATH_READ, 10_000, 8, 1_500, 4, 6),
    ], [10_000]));
    expect(checks.map(({ target, met, measured }) => ({ scenario: target.slice(0, target.indexOf(': ≥')), met, measured }))).toEqual([
      { scenario: ID_READ, met: true, measured: '2,400 req/s, p90 15.0 ms, 0.120' },
      { scenario: PATH_READ, met: false, measured: '1,900 req/s, p90 24.0 ms, 0.095' },
    ]);
  });

  it('holds the offset listing to p90 < 50 ms at 100,000 projects at every concurrency, and skips other sizes', () => {
    const checks = targetChecks(run([
      m(OFFSET_FILTERED, 100_000, 1, 150, 6, 10), m(OFFSET_FILTERED, 100_000, 32, 380, 80, 107.8), m(OFFSET_FILTERED, 10_000, 32, 400, 10, 20),
    ], [10_000, 100_000]));
    expect(checks).toEqual([
      expect.objectContaining({ size: 100_000, concurrency: 1, measured: 'p90 10.0 ms at 150 req/s', met: true }),
      expect.objectContaining({ size: 100_000, concurrency: 32, measured: 'p90 107.8 ms at 380 req/s', met: false }),
    ]);
  });

  it('holds keyset paging to p50 at the largest size ≤ 1.2 × p50 at the smallest, with the higher steal of the two runs', () => {
    const checks = targetChecks(run([
      m(KEYSET_DEEP, 10_000, 1, 200, 4, 6, 0.5), m(KEYSET_DEEP, 1_000_000, 1, 190, 4.8, 7, 8.1),
      m(KEYSET_DEEP, 10_000, 32, 400, 60, 90), m(KEYSET_DEEP, 1_000_000, 32, 300, 80, 120),
    ], [10_000, 1_000_000]));
    expect(checks).toEqual([
      { target: expect.stringContaining('p50 at 1,000,000 ≤ 1.2 × p50 at 10,000'), size: 1_000_000, concurrency: 1, measured: '1.20 (4.80 / 4.00 ms)', met: true, stealPercent: 8.1 },
      expect.objectContaining({ concurrency: 32, measured: '1.33 (80.00 / 60.00 ms)', met: false }),
    ]);
  });

  it('takes the smallest size of the keyset ratio from its paired measurement when the run made one', () => {
    const paired = (x: Measurement): Measurement => ({ ...x, paired: true, repeats: [x, x, x].map(({ rps, p50, p90 }) => ({ rps, p50, p90 })) });
    const checks = targetChecks(run([
      m(KEYSET_DEEP, 10_000, 1, 300, 3, 5, 0.2), // the first stage: a fast phase
      m(KEYSET_DEEP, 10_000, 32, 400, 60, 90),
      m(KEYSET_DEEP, 1_000_000, 1, 200, 4.5, 7, 1.5), paired(m(KEYSET_DEEP, 10_000, 1, 210, 4.2, 6.5, 2.5)),
      m(KEYSET_DEEP, 1_000_000, 32, 300, 80, 120), // no paired run at c=32: the stage's is the denominator
    ], [10_000, 1_000_000]));
    expect(checks).toEqual([
      expect.objectContaining({ concurrency: 1, measured: '1.07 (4.50 / 4.20 ms, median of 3, paired; 1.50 against the 10,000 stage)', met: true, stealPercent: 2.5 }),
      expect.objectContaining({ concurrency: 32, measured: '1.33 (80.00 / 60.00 ms)', met: false }),
    ]);
  });

  it('takes a paired keyset ratio as the median of its rounds, not the ratio of the two sides\' medians', () => {
    const rounds = (x: Measurement, p50s: number[]): Measurement => ({ ...x, repeats: p50s.map((p50) => ({ rps: x.rps, p50, p90: x.p90 })) });
    // The machine slowed down after the second small run: the sides' medians (29.54 / 36.27 ms) would say 1.23.
    const checks = targetChecks(run([
      m(KEYSET_DEEP, 10_000, 32, 900, 31.5, 50), rounds(m(KEYSET_DEEP, 1_000_000, 32, 780, 36.27, 60), [28.68, 36.27, 36.51]),
      { ...rounds(m(KEYSET_DEEP, 10_000, 32, 980, 29.54, 48), [29.5, 29.54, 37.68]), paired: true },
    ], [10_000, 1_000_000], [32]));
    expect(checks).toEqual([expect.objectContaining({ met: true, measured: "0.97 (median of the rounds' 0.97 / 1.23 / 0.97; p50 36.27 / 29.54 ms, paired; 1.15 against the 10,000 stage)" })]);
  });

  it('takes the share of the ceiling round by round from a ceiling measured alternately with the read', () => {
    const rounds = (x: Measurement, rps: number[]): Measurement => ({ ...x, repeats: rps.map((r) => ({ rps: r, p50: x.p50, p90: x.p90 })) });
    // Run 28's by-path read at 1M: 0.0996 of the stage's ceiling, measured minutes before the read.
    const checks = targetChecks(run([
      rounds(m(BARE, 1_000_000, 32, 23_573, 1, 2.3), [26_094, 23_573, 23_675]),
      rounds(m(PATH_READ, 1_000_000, 32, 2_348, 12.58, 18.1), [2_475, 2_271, 2_348]),
      { ...rounds(m(BARE, 1_000_000, 32, 21_000, 1, 2.4), [22_000, 21_000, 23_800]), paired: true, pairedWith: PATH_READ },
      // paired with the other read: not this one's
      { ...rounds(m(BARE, 1_000_000, 32, 30_000, 1, 2.4), [30_000, 30_000, 30_000]), paired: true, pairedWith: ID_READ },
    ], [1_000_000], [32]));
    expect(checks).toEqual([expect.objectContaining({
      target: expect.stringContaining(PATH_READ), met: true,
      measured: "2,348 req/s, p90 18.1 ms, 0.108 of the paired ceiling (median of the rounds' 0.113 / 0.108 / 0.099), 0.100 of the stage's, median of 3",
    })]);
    const slower = targetChecks(run([
      m(BARE, 1_000_000, 32, 20_000, 1, 2), rounds(m(ID_READ, 1_000_000, 32, 2_200, 12, 18), [2_200, 2_200, 2_200]),
      { ...rounds(m(BARE, 1_000_000, 32, 24_000, 1, 2), [23_000, 24_000, 25_000]), paired: true, pairedWith: ID_READ },
    ], [1_000_000], [32]));
    expect(slower).toEqual([expect.objectContaining({ met: false, measured: expect.stringContaining("0.092 of the paired ceiling (median of the rounds' 0.096 / 0.092 / 0.088), 0.110 of the stage's") })]);
    expect([pairsCeiling(ID_READ), pairsCeiling(PATH_READ), pairsCeiling(OFFSET_FILTERED), pairsCeiling(BARE)]).toEqual([true, true, false, false]);
  });

  it('says where a check stands on the median of repeated measurements', () => {
    const repeatsOf = (x: Measurement) => ({ ...x, repeats: [x, x, x].map(({ rps, p50, p90 }) => ({ rps, p50, p90 })) });
    const checks = targetChecks(run([
      repeatsOf(m(BARE, 10_000, 32, 20_000, 1, 2)), repeatsOf(m(ID_READ, 10_000, 32, 2_400, 10, 15)),
      repeatsOf(m(KEYSET_DEEP, 10_000, 32, 400, 60, 90)), m(KEYSET_DEEP, 1_000_000, 32, 400, 66, 90),
    ], [10_000, 1_000_000], [32]));
    expect(checks.map((c) => c.measured)).toEqual(['2,400 req/s, p90 15.0 ms, 0.120, median of 3', '1.10 (66.00 / 60.00 ms, median of 3)']);
  });

  it('has no check for a target the run did not measure', () => {
    expect(targetChecks(run([m(ID_READ, 10_000, 1, 300, 3, 4)], [10_000], [1, 8]))).toEqual([]);
    expect(targetsMarkdown([])).toEqual([]);
  });
});

describe('the report', () => {
  it('has a Targets section counting the checks met', () => {
    const md = markdownReport(run([
      m(BARE, 100_000, 32, 20_000, 1, 2), m(ID_READ, 100_000, 32, 2_100, 12, 19.9), m(OFFSET_FILTERED, 100_000, 32, 380, 80, 107.8, 1.25),
    ], [100_000], [32]), []);
    expect(md).toContain('## Targets');
    expect(md).toContain('1 of 2 checks met.');
    expect(md).toContain(`| ${OFFSET_FILTERED}: p90 < 50 ms at 100,000 projects | 100,000 | 32 | p90 107.8 ms at 380 req/s | **no** | 1.3% |`);
  });
});

describe('repeated measurements', () => {
  const config = { sizes: [10_000, 100_000, 1_000_000], concurrency: [1, 8, 16, 32] };

  it('are the ones a target is checked against, and no others', () => {
    const fed = (scenario: string, size: number, c: number) => feedsTarget(scenario, size, c, config);
    expect([fed(ID_READ, 10_000, 32), fed(PATH_READ, 1_000_000, 32), fed(BARE, 100_000, 32)]).toEqual([true, true, true]);
    expect([fed(ID_READ, 10_000, 16), fed(BARE, 100_000, 1)]).toEqual([false, false]);
    expect([fed(OFFSET_FILTERED, 100_000, 1), fed(OFFSET_FILTERED, 100_000, 32), fed(OFFSET_FILTERED, 10_000, 32)]).toEqual([true, true, false]);
    // The smallest size's side of the keyset ratio is its paired measurement, made at the largest size's stage.
    expect([fed(KEYSET_DEEP, 10_000, 1), fed(KEYSET_DEEP, 1_000_000, 8), fed(KEYSET_DEEP, 100_000, 8)]).toEqual([false, true, false]);
    expect([pairsGrowth(KEYSET_DEEP), pairsGrowth(OFFSET_FILTERED), pairsGrowth(ID_READ)]).toEqual([true, false, false]);
    expect(feedsTarget(KEYSET_DEEP, 10_000, 1, { sizes: [10_000], concurrency: [1] })).toBe(false); // no growth in one size
    expect(fed('GET /projects?topic=t7 (member)', 1_000_000, 32)).toBe(false);
  });

  it('alternate the two sides of a paired measurement, each side\'s median run recorded', async () => {
    const order: string[] = [];
    const side = (name: string, p50s: number[]) => { let i = 0; return async () => { order.push(name); return m(ID_READ, 1, 1, 100, p50s[i++]!, 1); }; };
    const [a, b] = await alternated(3, side('small', [3, 1, 2]), side('large', [5, 9, 7]));
    expect(order).toEqual(['small', 'large', 'small', 'large', 'small', 'large']);
    expect([a.p50, b.p50]).toEqual([2, 7]);
    expect(b.repeats.map((r) => r.p50)).toEqual([5, 9, 7]);
  });

  it('keep the run with the median p50 whole, and every repeat\'s figures in the order run', () => {
    const a = { ...m(ID_READ, 10_000, 32, 2_000, 12, 20, 1), requests: 1 };
    const b = { ...m(ID_READ, 10_000, 32, 2_600, 9, 15, 2), requests: 2 };
    const c = { ...m(ID_READ, 10_000, 32, 2_300, 10, 17, 3), requests: 3 };
    expect(medianRun([a, b, c])).toEqual({ ...c, repeats: [{ rps: 2_000, p50: 12, p90: 20 }, { rps: 2_600, p50: 9, p90: 15 }, { rps: 2_300, p50: 10, p90: 17 }] });
    expect(medianRun([a, b]).requests).toBe(2); // the lower middle of two
    expect(medianRun([a]).repeats).toHaveLength(1);
    expect(() => medianRun([])).toThrow('no runs');
  });
});
