import type { Pool } from 'pg';
import type { Logger } from '@glp/service-kit';
import { sleep } from './backoff';

export interface ProcessedEventsRetentionOptions {
  pool: Pool;
  /** Records older than this are deleted; 0 keeps them forever. */
  retentionMs: number;
  /** How often the old records are looked for. */
  intervalMs: number;
  /** Rows per DELETE, so that no statement holds many locks or runs long. */
  batchSize: number;
  logger: Logger;
}

/**
 * Deletes processed_events rows older than `retentionMs`, oldest first, `batchSize` per statement, until none is left;
 * returns how many. Replicas of a service may run it together: a row another one is deleting is skipped.
 */
export async function purgeProcessedEvents(pool: Pool, retentionMs: number, batchSize: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM processed_events WHERE (consumer, event_id) IN (
         SELECT consumer, event_id FROM processed_events
         WHERE processed_at < now() - make_interval(secs => $1::double precision / 1000)
         ORDER BY processed_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [retentionMs, batchSize],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return deleted;
  }
}

/**
 * The consumers' idempotence records are needed only while a duplicate can arrive: a redelivery, or a replay of what
 * Kafka still keeps. Past a retention longer than the topics' (retention.ms), they only grow the table.
 */
export function startProcessedEventsRetention(opts: ProcessedEventsRetentionOptions): { stop(): Promise<void> } {
  const abort = new AbortController();
  const log = opts.logger.child({ component: 'processed-events-retention' });
  const loop = (async () => {
    while (!abort.signal.aborted) {
      try {
        const deleted = await purgeProcessedEvents(opts.pool, opts.retentionMs, opts.batchSize);
        if (deleted) log.info({ deleted, retentionMs: opts.retentionMs }, 'deleted expired processed_events records');
      } catch (err) {
        if (!abort.signal.aborted) log.warn({ err }, 'processed_events retention failed; will try again');
      }
      await sleep(opts.intervalMs, abort.signal);
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
