import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '@glp/service-kit';

/** Attempts by outcome: success (2xx), failure (retried later), failed (given up), dropped (hook deleted). */
export const deliveriesTotal = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (success, failure, failed, dropped)',
  labelNames: ['outcome'],
  registers: [registry],
});

/** From the event (push committed) to the receiver's answer. */
export const deliveryLatency = new Histogram({
  name: 'webhook_delivery_latency_seconds',
  help: 'Time from the domain event to the receiver answering a delivery attempt',
  labelNames: ['outcome'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
  registers: [registry],
});

/** Open deliveries; read on scrape through `setQueueDepthSource`. */
let depthSource: (() => Promise<number>) | undefined;
export function setQueueDepthSource(source: () => Promise<number>): void {
  depthSource = source;
}
export const queueDepth = new Gauge({
  name: 'webhook_queue_depth',
  help: 'Deliveries pending or in flight',
  registers: [registry],
  async collect() {
    if (depthSource) this.set(await depthSource().catch(() => 0));
  },
});
