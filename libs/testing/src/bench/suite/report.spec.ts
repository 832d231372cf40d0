import { lineChartPng, lineChartSvg } from './line-chart';
import type { Measurement } from './measurement';
import { BARE, growthRows, markdownReport, type SuiteRun } from './report';
import { suiteConfig } from './suite-config';

const m = (scenario: string, size: number, concurrency: number, p50: number, rps = 100, growth = true): Measurement => ({
  scenario, kind: scenario === BARE ? 'baseline' : 'api', growth, size, concurrency, seconds: 1, requests: rps, rps, p50, p90: p50 * 2, p99: p50 * 3, errors: 0, non2xx: 0,
});

const run = (measurements: Measurement[], sizes = [10, 1000]): SuiteRun => ({
  startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z',
  machine: { cpus: 'cpu', cores: 2, memoryGb: 4, node: 'v20', platform: 'linux' },
  config: { sizes, concurrency: [1, 8], seconds: 1, warmupSeconds: 0, namespaces: 10 },
  seeding: sizes.map((size) => ({ size, ms: 5 })),
  measurements,
});

describe('growthRows', () => {
  it('divides p50 at the largest size by p50 at the smallest, per scenario and concurrency, for growth scenarios only', () => {
    const rows = growthRows(run([m('list', 10, 1, 2), m('list', 1000, 1, 3), m('list', 10, 8, 4), m('list', 1000, 8, 4), m('write', 10, 1, 1, 100, false), m('write', 1000, 1, 9, 100, false)]));
    expect(rows).toEqual([
      { scenario: 'list', concurrency: 1, p50AtMin: 2, p50AtMax: 3, ratio: 1.5, paired: false },
      { scenario: 'list', concurrency: 8, p50AtMin: 4, p50AtMax: 4, ratio: 1, paired: false },
    ]);
  });

  it('divides by the paired measurement of the smallest size where there is one, keeping the stage ratio beside it', () => {
    const r = run([m('list', 10, 1, 2), m('list', 1000, 1, 3), { ...m('list', 10, 1, 2.5), paired: true }, m('list', 10, 8, 4), m('list', 1000, 8, 4)]);
    expect(growthRows(r)).toEqual([
      { scenario: 'list', concurrency: 1, p50AtMin: 2.5, p50AtMax: 3, ratio: 1.2, paired: true, stageP50AtMin: 2, stageRatio: 1.5 },
      { scenario: 'list', concurrency: 8, p50AtMin: 4, p50AtMax: 4, ratio: 1, paired: false },
    ]);
    const md = markdownReport(r, []);
    expect(md).toContain('| list | 1 | 2.50 | 3.00 | 1.20 | paired | 2.00 | 1.50 |');
    expect(md).toContain('| list | 8 | 4.00 | 4.00 | 1.00 | own stage |  |  |');
    // With each side's repeats kept, the ratio is the median of the rounds'.
    const withRounds = run([m('list', 10, 1, 2), { ...m('list', 1000, 1, 3), repeats: [3, 6, 3.3].map((p50) => ({ rps: 1, p50, p90: 1 })) },
      { ...m('list', 10, 1, 2.5), paired: true, repeats: [3, 2.5, 5].map((p50) => ({ rps: 1, p50, p90: 1 })) }]);
    const [row] = growthRows(withRounds);
    expect([row!.ratio, row!.roundRatios!.map((r) => r.toFixed(2))]).toEqual([1, ['1.00', '2.40', '0.66']]); // not 3 / 2.5
    expect(markdownReport(withRounds, [])).toContain('| list | 1 | 2.50 | 3.00 | 1.00 | paired (rounds 1.00 / 2.40 / 0.66) | 2.00 | 1.50 |');
    // The smallest size's table shows the stage's run only.
    expect(md.split('## 10 projects')[1]!.split('## ')[0]!.match(/\| list \| 1 \|/g)).toHaveLength(1);
  });
});

describe('markdownReport', () => {
  it('states each scenario as a fraction of the bare-http ceiling at the same concurrency', () => {
    const md = markdownReport(run([m(BARE, 10, 1, 0.1, 10000, false), m('GET /projects/:id', 10, 1, 1, 1000)], [10]), ['a.png']);
    expect(md).toContain('| GET /projects/:id | 1 | 1000 | 1.00 | 2.00 | 3.00 | 0 | 0 | 0.100 |  |');
    expect(md).toContain('- a.png');
    expect(md).not.toContain('stolen by the hypervisor: median');
  });

  it('takes the ceiling measured at the same size, and falls back to the one of the first size for older results', () => {
    const md = markdownReport(run([
      m(BARE, 10, 1, 0.1, 10000, false), m('GET /projects/:id', 10, 1, 1, 1000),
      m(BARE, 1000, 1, 0.1, 5000, false), m('GET /projects/:id', 1000, 1, 1, 1000),
    ]), []);
    expect(md).toContain('| GET /projects/:id | 1 | 1000 | 1.00 | 2.00 | 3.00 | 0 | 0 | 0.100 |');
    expect(md).toContain('| GET /projects/:id | 1 | 1000 | 1.00 | 2.00 | 3.00 | 0 | 0 | 0.200 |');
    const old = markdownReport(run([m(BARE, 10, 1, 0.1, 10000, false), m('GET /projects/:id', 1000, 1, 1, 2000)]), []);
    expect(old).toContain('| GET /projects/:id | 1 | 2000 | 1.00 | 2.00 | 3.00 | 0 | 0 | 0.200 |');
  });

  it("shows the machine's busy and stolen CPU per run, and the median and highest steal of the run", () => {
    const withHost = (x: Measurement, busy: number, steal: number): Measurement => ({ ...x, host: { busyPercent: busy, stealPercent: steal } });
    const md = markdownReport(run([
      withHost(m(BARE, 10, 1, 0.1, 10000, false), 60, 1), withHost(m('GET /projects/:id', 10, 1, 1, 1000), 97.4, 12.25), withHost(m('GET /projects/:id', 10, 8, 1, 1000), 90, 2),
    ], [10]), []);
    expect(md).toContain('| 0.100 | 97% / 12.3% |');
    expect(md).toContain('CPU stolen by the hypervisor: median 2.0%, highest 12.3% (GET /projects/:id, 10 projects, c=1).');
  });
});

describe('lineChart', () => {
  it('draws one line per series and renders a PNG', () => {
    const spec = { title: 'p50 <x>', xLabel: 'n', yLabel: 'ms', logX: true, series: [{ name: 'a', points: [[10, 1], [1000, 2]] as [number, number][] }, { name: 'b', points: [[10, 3]] as [number, number][] }] };
    const svg = lineChartSvg(spec);
    expect(svg.match(/<polyline/g)).toHaveLength(1);
    expect(svg).toContain('p50 &lt;x&gt;');
    expect(lineChartPng(spec).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('suiteConfig', () => {
  it('parses the lists and refuses nonsense', () => {
    expect(suiteConfig({ BENCH_SIZES: '10000, 100000', BENCH_CONCURRENCY: '1,8' })).toMatchObject({ BENCH_SIZES: [10000, 100000], BENCH_CONCURRENCY: [1, 8], BENCH_SECONDS: 10 });
    expect(() => suiteConfig({ BENCH_SIZES: '10k' })).toThrow();
  });
});
