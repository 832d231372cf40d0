import { countedAtScrape, EVENT_LOOP_SAMPLE_MS, initMetrics, registry } from './metrics';

describe('initMetrics', () => {
  it('collects the default process metrics, the event loop sampled every EVENT_LOOP_SAMPLE_MS', async () => {
    initMetrics('metrics-spec');
    // Samples accumulate only while the loop turns: wait for a few.
    await new Promise((resolve) => setTimeout(resolve, 4 * EVENT_LOOP_SAMPLE_MS + 50));
    const text = await registry.metrics();
    expect(text).toMatch(/^process_cpu_seconds_total\{service="metrics-spec"\} /m);
    const p99 = /^nodejs_eventloop_lag_p99_seconds\{service="metrics-spec"\} (\S+)$/m.exec(text);
    expect(p99).not.toBeNull();
    expect(Number(p99?.[1])).toBeGreaterThan(0);
  });
});

describe('countedAtScrape', () => {
  it('adds what was counted since the last scrape, every value in its own series from the first scrape on', async () => {
    const counts = countedAtScrape({ name: 'metrics_spec_lookups_total', help: 'test', label: 'result', values: ['hit', 'miss'] as const });
    const read = async () => {
      const { values } = await registry.getSingleMetric('metrics_spec_lookups_total')!.get();
      return Object.fromEntries(values.map((v) => [v.labels.result, v.value]));
    };
    expect(await read()).toEqual({ hit: 0, miss: 0 });
    counts.hit += 2;
    counts.miss++;
    expect(await read()).toEqual({ hit: 2, miss: 1 });
    expect(counts).toEqual({ hit: 0, miss: 0 });
    counts.hit++;
    expect(await read()).toEqual({ hit: 3, miss: 1 });
  });
});
