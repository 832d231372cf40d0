import { parseProcessMetrics } from './service-metrics';

describe('parseProcessMetrics', () => {
  it('reads RSS and CPU seconds from prom-client default metrics, with or without default labels', () => {
    const labelled = [
      '# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.',
      '# TYPE process_cpu_seconds_total counter',
      'process_cpu_seconds_total{service="projects"} 12.5',
      'process_resident_memory_bytes{service="projects"} 104857600',
    ].join('\n');
    expect(parseProcessMetrics(labelled)).toEqual({ cpu: 12.5, rss: 104857600 });
    expect(parseProcessMetrics('process_cpu_seconds_total 1\nprocess_resident_memory_bytes 2\n')).toEqual({ cpu: 1, rss: 2 });
  });

  it('answers undefined when either is missing', () => {
    expect(parseProcessMetrics('process_cpu_seconds_total 1\n')).toBeUndefined();
  });
});
