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
}

export type LoadNumbers = Pick<Measurement, 'requests' | 'rps' | 'p50' | 'p90' | 'p99' | 'errors' | 'non2xx' | 'statuses'>;
