import type { Logger } from '@glp/service-kit';
import { deleteOldDeliveries } from '../store/deliveries-store';
import { deleteOldEvents } from '../store/events-store';
import { deleteOldLogs } from '../store/logs-store';
import type { DispatcherDeps } from './deps';

/** Deletes delivery logs past the retention (GitLab keeps 7 days), then finished deliveries and unused payloads. */
export async function pruneOldDeliveries(deps: Pick<DispatcherDeps, 'pool' | 'settings'>): Promise<{ logs: number; deliveries: number; events: number }> {
  const days = deps.settings.logRetentionDays;
  const drain = async (step: () => Promise<number>) => {
    let total = 0;
    for (let n = await step(); n > 0; n = await step()) total += n;
    return total;
  };
  const logs = await drain(() => deleteOldLogs(deps.pool, days));
  const deliveries = await drain(() => deleteOldDeliveries(deps.pool, days));
  const events = await drain(() => deleteOldEvents(deps.pool, days));
  return { logs, deliveries, events };
}

export function startRetention(deps: Pick<DispatcherDeps, 'pool' | 'settings'>, logger: Logger, intervalMs: number): { stop(): void } {
  const run = () =>
    pruneOldDeliveries(deps).then(
      (n) => (n.logs || n.deliveries || n.events) && logger.info(n, 'old webhook deliveries pruned'),
      (err) => logger.warn({ err }, 'pruning webhook deliveries failed'),
    );
  const timer = setInterval(run, intervalMs);
  timer.unref();
  void run();
  return { stop: () => clearInterval(timer) };
}
