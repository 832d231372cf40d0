import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lineChartPng, type Series } from './line-chart';
import type { Measurement } from './measurement';
import { BARE, GRPC, SQL, ceilingFor, growthRows, type SuiteRun } from './suite-run';
import { targetChecks, targetsMarkdown } from './targets';

export { BARE, GRPC, SQL, ceilingFor, growthRows, type GrowthRow, type SuiteRun } from './suite-run';

const n = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const mb = (x: number) => x.toFixed(0);

function servicesCell(m: Measurement): string {
  if (!m.services) return '';
  return Object.entries(m.services)
    .filter(([, u]) => u.cpuPercent >= 5)
    .sort((a, b) => b[1].cpuPercent - a[1].cpuPercent)
    .map(([name, u]) => `${name} ${u.cpuPercent.toFixed(0)}% ${mb(u.rssMb)} MB`)
    .join(', ');
}

function hostCell(m: Measurement): string {
  return m.host ? `${m.host.busyPercent.toFixed(0)}% / ${m.host.stealPercent.toFixed(1)}%` : '';
}

/** The hypervisor's share over the runs that recorded it: median and highest, with the run that had the highest. */
function stealLine(run: SuiteRun): string | undefined {
  const withHost = run.measurements.filter((m) => m.host);
  if (!withHost.length) return undefined;
  const steals = withHost.map((m) => m.host!.stealPercent).sort((a, b) => a - b);
  const worst = withHost.reduce((a, b) => (b.host!.stealPercent > a.host!.stealPercent ? b : a));
  return `CPU stolen by the hypervisor: median ${n(steals[Math.floor((steals.length - 1) / 2)]!, 1)}%, highest ${n(worst.host!.stealPercent, 1)}% (${worst.scenario}, ${worst.size.toLocaleString('en-US')} projects, c=${worst.concurrency}).`;
}

export function markdownReport(run: SuiteRun, charts: string[]): string {
  const out: string[] = [
    `# Benchmark suite, ${run.startedAt}`,
    '',
    `Machine: ${run.machine.cores} × ${run.machine.cpus}, ${run.machine.memoryGb.toFixed(1)} GB, Node ${run.machine.node} (${run.machine.platform}).`,
    `Settings: sizes ${run.config.sizes.join(', ')}; concurrency ${run.config.concurrency.join(', ')}; ${run.config.seconds} s measured after ${run.config.warmupSeconds} s warm-up per run${run.config.stackWarmupSeconds ? ` (and ${run.config.stackWarmupSeconds} s of the read scenarios once the stack started)` : ''}; ${run.config.namespaces} namespaces.${(run.config.targetRepeats ?? 1) > 1 ? ` Each measurement a target is checked against was run ${run.config.targetRepeats} times; the one with the median p50 is shown (results.json keeps every repeat).` : ''}`,
    `Seeding (SQL, TRUNCATE + generate_series, VACUUM ANALYZE): ${run.seeding.map((s) => `${s.size} in ${(s.ms / 1000).toFixed(1)} s`).join('; ')}.`,
    '',
    'Latencies in ms. "of ceiling": requests/s as a fraction of the bare Node http server at the same concurrency, measured at the same size.',
    'Services: CPU (100% = one core) and peak RSS of each service using ≥ 5% CPU during the run, from its /metrics.',
    'Host: the whole machine during the run (warm-up included), as shares of all its cores: busy, and stolen by the hypervisor (time this VM wanted the CPU and another guest had it).',
    ...[stealLine(run)].filter((l): l is string => !!l),
    '',
  ];
  for (const size of run.config.sizes) {
    out.push(`## ${size.toLocaleString('en-US')} projects`, '', '| scenario | conc. | req/s | p50 | p90 | p99 | errors | non-2xx | of ceiling | host busy / steal | services |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const m of run.measurements.filter((x) => x.size === size && !x.paired)) {
      const ceiling = ceilingFor(run, size, m.concurrency);
      const frac = ceiling && m.scenario !== BARE ? n(m.rps / ceiling.rps, 3) : '';
      out.push(`| ${m.scenario} | ${m.concurrency} | ${n(m.rps, 0)} | ${n(m.p50)} | ${n(m.p90)} | ${n(m.p99)} | ${m.errors} | ${m.non2xx} | ${frac} | ${hostCell(m)} | ${servicesCell(m)} |`);
    }
    out.push('');
  }
  const growth = growthRows(run);
  if (growth.length) {
    const [min, max] = [Math.min(...run.config.sizes), Math.max(...run.config.sizes)].map((x) => x.toLocaleString('en-US'));
    out.push(`## Growth: p50 at ${max} over p50 at ${min} projects`, '');
    if (growth.some((g) => g.paired)) {
      out.push(`"paired": the ${min} side measured on a second stack seeded with ${min} projects, its runs alternated with the ${max} runs, the ratio the median of the rounds' ratios (each round a ${min} run and the ${max} run right after it; the one the target is checked against); the ${min} stage's own p50 and ratio follow, measured earlier in the run (minutes to half an hour before).`, '');
    }
    out.push('| scenario | conc. | p50 small | p50 large | ratio | small measured | stage p50 small | stage ratio |', '|---|---:|---:|---:|---:|---|---:|---:|');
    for (const g of growth) {
      out.push(`| ${g.scenario} | ${g.concurrency} | ${n(g.p50AtMin)} | ${n(g.p50AtMax)} | ${n(g.ratio)} | ${g.paired ? `paired${g.roundRatios ? ` (rounds ${g.roundRatios.map((r) => n(r)).join(' / ')})` : ''}` : 'own stage'} | ${g.stageP50AtMin === undefined ? '' : n(g.stageP50AtMin)} | ${g.stageRatio === undefined ? '' : n(g.stageRatio)} |`);
    }
    out.push('');
  }
  out.push(...targetsMarkdown(targetChecks(run)));
  out.push('## Charts', '', ...charts.map((c) => `- ${c}`), '');
  return out.join('\n');
}

/** Charts: p50 and p90 vs concurrency per size (every scenario and baseline), p50 vs size per concurrency (growth ones). */
function writeCharts(dir: string, run: SuiteRun): string[] {
  const files: string[] = [];
  const write = (file: string, spec: Parameters<typeof lineChartPng>[0]) => {
    if (!spec.series.some((s) => s.points.length)) return;
    writeFileSync(path.join(dir, file), lineChartPng(spec));
    files.push(file);
  };
  const names = [...new Set(run.measurements.map((m) => m.scenario))];
  // The paired runs at the smallest size are a second measurement of a point the charts already have.
  const unpaired = run.measurements.filter((m) => !m.paired);
  for (const size of run.config.sizes) {
    for (const q of ['p50', 'p90'] as const) {
      const series: Series[] = names.map((name) => ({
        name,
        points: unpaired
          .filter((m) => m.scenario === name && (m.size === size || (m.scenario === BARE && ceilingFor(run, size, m.concurrency) === m)))
          .map((m) => [m.concurrency, m[q]] as [number, number]),
      }));
      write(`latency-vs-concurrency-${size}-${q}.png`, { title: `${q} latency vs concurrency, ${size.toLocaleString('en-US')} projects`, xLabel: 'concurrent connections (log scale)', yLabel: `${q} ms`, series, logX: true });
    }
  }
  if (run.config.sizes.length > 1) {
    const grown = names.filter((name) => name === GRPC || name === SQL || run.measurements.some((m) => m.scenario === name && m.growth));
    for (const c of run.config.concurrency) {
      const series: Series[] = grown.map((name) => ({
        name,
        points: unpaired.filter((m) => m.scenario === name && m.concurrency === c).map((m) => [m.size, m.p50] as [number, number]),
      }));
      write(`latency-vs-n-c${c}.png`, { title: `p50 latency vs projects, ${c} connection(s)`, xLabel: 'projects (log scale)', yLabel: 'p50 ms', series, logX: true });
    }
  }
  return files;
}

/** results.json, report.md and the charts into `dir`; returns the report. */
export function writeResults(dir: string, run: SuiteRun): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'results.json'), `${JSON.stringify({ ...run, growth: growthRows(run), targets: targetChecks(run) }, null, 2)}\n`);
  const charts = writeCharts(dir, run);
  const md = markdownReport(run, charts);
  writeFileSync(path.join(dir, 'report.md'), md);
  return md;
}
