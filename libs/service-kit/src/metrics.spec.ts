import { EVENT_LOOP_SAMPLE_MS, initMetrics, registry } from './metrics';

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
