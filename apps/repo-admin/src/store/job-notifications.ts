import { Client } from 'pg';
import { assertIdentifier } from '@glp/db';
import type { Logger } from '@glp/service-kit';

/**
 * LISTENs on `repository_jobs_<schema>` (notified by `enqueueJob` when its transaction commits) and calls `onJob`; the
 * worker's poll covers a lost connection, which is re-established after a pause.
 */
export function listenForJobs(url: string, schema: string, logger: Logger, onJob: () => void): { stop(): Promise<void> } {
  const channel = `repository_jobs_${assertIdentifier(schema)}`;
  let client: Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (stopped) return;
    const c = new Client({ connectionString: url, keepAlive: true, application_name: `${schema}-jobs` });
    c.on('error', (err) => {
      logger.warn({ err }, 'job notifications: connection lost, reconnecting');
      c.end().catch(() => undefined);
      if (client === c) client = undefined;
      timer = setTimeout(() => void connect(), 1000);
    });
    c.on('notification', () => onJob());
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      client = c;
    } catch (err) {
      logger.warn({ err }, 'job notifications: cannot listen, retrying');
      c.end().catch(() => undefined);
      timer = setTimeout(() => void connect(), 1000);
    }
  };
  void connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
