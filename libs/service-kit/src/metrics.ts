import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { closeHttpServer, onShutdown } from './shutdown';

export const registry = new Registry();
let defaultsCollected = false;

export function initMetrics(service: string): Registry {
  if (!defaultsCollected) {
    registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: registry });
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
