import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { closeHttpServer, onShutdown } from './shutdown';

export const registry = new Registry();
let defaultsCollected = false;

/**
 * How often the event loop's delay is sampled for `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`
 * (prom-client's `monitorEventLoopDelay` resolution). prom-client's default, 10 ms, wakes every process 100 times a
 * second whatever it is doing: ~200 `epoll_pwait` a second in an idle service, 0.5% of a core each (bench/README.md,
 * "The event loop sampled every 100 ms"). At 100 ms a 15 s scrape still reads ~150 samples, and a blocked loop is
 * caught the same way (the next sample is late by the block, whatever the resolution).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export function initMetrics(service: string): Registry {
  if (!defaultsCollected) {
    registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    defaultsCollected = true;
  }
  return registry;
}

export const grpcServerHandled = new Histogram({
  name: 'grpc_server_handling_seconds',
  help: 'Time to handle a unary gRPC call',
  labelNames: ['method', 'code'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

export const eventsCounter = new Counter({
  name: 'domain_events_total',
  help: 'Domain events by stage (outboxed, published, consumed, duplicate, skipped, failed, dead_lettered, dead_letter_failed)',
  labelNames: ['stage', 'topic'],
  registers: [registry],
});

/**
 * A counter by one label for a hot path: callers add to plain numbers (`counts[value]++`), and the counter takes them
 * at each scrape (its `collect()`). prom-client's labelled `inc` hashes the labels into a new string on every call: 20
 * a page for the listings' cache lookups (bench/README.md, "The listing's per-project allocations"). Every value's
 * series exists from the first scrape on (an `inc` of 0 creates it).
 */
export function countedAtScrape<V extends string>(opts: { name: string; help: string; label: string; values: readonly V[] }): Record<V, number> {
  const counts = Object.fromEntries(opts.values.map((v) => [v, 0])) as Record<V, number>;
  new Counter({
    name: opts.name,
    help: opts.help,
    labelNames: [opts.label],
    registers: [registry],
    collect() {
      for (const value of opts.values) {
        this.inc({ [opts.label]: value }, counts[value]);
        counts[value] = 0;
      }
    },
  });
  return counts;
}

/** Serves GET /metrics on its own small HTTP port (0 = disabled); closed on shutdown. */
export async function startMetricsServer(port: number, host = '0.0.0.0'): Promise<Server | undefined> {
  if (!port) return undefined;
  const server = createServer(async (req, res) => {
    if (req.url === '/metrics') {
      res.setHeader('Content-Type', registry.contentType);
      res.end(await registry.metrics());
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  onShutdown('metrics', () => closeHttpServer(server, 1000));
  return server;
}
