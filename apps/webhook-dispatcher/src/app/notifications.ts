import { Client } from 'pg';
import type { Logger } from '@glp/service-kit';

/**
 * A dedicated connection LISTENing on channels (new deliveries, changed settings); reconnects after a failure. A lost
 * notification only delays work until the next poll.
 */
export class NotificationListener {
  private client: Client | undefined;
  private stopped = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly handlers: Record<string, () => void>,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.databaseUrl, keepAlive: true, application_name: 'webhook-dispatcher-listen' });
    client.on('notification', (n) => this.handlers[n.channel]?.());
    client.on('error', (err) => {
      this.logger.warn({ err }, 'notification listener lost its connection');
      void client.end().catch(() => undefined);
      if (this.client === client) this.client = undefined;
      if (!this.stopped) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
    });
    try {
      await client.connect();
      for (const channel of Object.keys(this.handlers)) await client.query(`LISTEN "${channel}"`);
      this.client = client;
      // Whatever was notified while we were away.
      for (const handler of Object.values(this.handlers)) handler();
    } catch (err) {
      this.logger.warn({ err }, 'notification listener could not connect; retrying');
      await client.end().catch(() => undefined);
      if (!this.stopped) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => undefined);
  }
}
