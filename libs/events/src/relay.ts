import { Client, type Pool } from 'pg';
import type { Kafka, Message, Producer, TopicMessages } from 'kafkajs';
import { assertIdentifier } from '@glp/db';
import { eventsCounter, type Logger } from '@glp/service-kit';
import { Backoff, sleep, Wakeup } from './backoff';
import { ensureTopics, kafkaFrom, type KafkaSource } from './kafka';
import { outboxChannel } from './outbox';

export interface OutboxRelayOptions extends KafkaSource {
  /** The service's pool (search_path = schema); reads and deletes outbox rows. */
  pool: Pool;
  /** For the relay's own dedicated connection (advisory lock + LISTEN). */
  databaseUrl: string;
  schema: string;
  logger: Logger;
  /** kafkajs clientId when the relay builds its own client from `brokers`. */
  clientId?: string;
  /** Drain even without a notification this often (default 1000 ms). */
  pollIntervalMs?: number;
  /** Rows per produce request (default 100). */
  batchSize?: number;
  /** A standby replica tries to take the lock this often (default 3000 ms). */
  lockRetryMs?: number;
  /** Backoff after a failed publish (default 500 ms doubling to 5000 ms). */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** Topics to create up front (those met in the outbox are created on first use anyway). */
  topics?: string[];
  /** Partitions of topics the relay creates (default: broker's num.partitions). */
  numPartitions?: number;
}

export interface RelayStats {
  /** Outbox rows acknowledged by Kafka (and deleted). */
  published: number;
  /** Produce requests acknowledged. */
  batches: number;
  /** Failed drain attempts (Kafka or database). */
  failures: number;
  /** True while this relay holds the schema's relay lock. */
  leader: boolean;
  /** Times this relay became the leader. */
  leaderships: number;
}

interface OutboxRow {
  id: number;
  topic: string;
  message_key: string;
  event_id: string;
  event_type: string;
  payload: Buffer;
}

/**
 * Publishes a schema's outbox to Kafka. Exactly one relay per schema is active across
 * replicas: it holds pg_try_advisory_lock(hashtext('<schema>.outbox_relay')) on a
 * dedicated connection, LISTENs on '<schema>_outbox' there, and drains on every
 * notification and every poll interval: rows in id order, produced with an idempotent
 * producer (acks=all, one request in flight), deleted after the ack. A failed publish is
 * retried with backoff on the same rows, in the same order; nothing is skipped.
 * Delivery is at-least-once: consumers deduplicate by event id (EventConsumer).
 * Order: id order is commit order for writes that lock the same aggregate row, so the
 * events of one aggregate (one message key, one partition) keep their order.
 */
export class OutboxRelay {
  readonly stats: RelayStats = { published: 0, batches: 0, failures: 0, leader: false, leaderships: 0 };

  private readonly opts: Required<
    Pick<OutboxRelayOptions, 'pollIntervalMs' | 'batchSize' | 'lockRetryMs' | 'backoffInitialMs' | 'backoffMaxMs'>
  >;
  private readonly schema: string;
  private readonly channel: string;
  private readonly lockKey: string;
  private readonly kafka: Kafka;
  private readonly log: Logger;
  private readonly wakeup = new Wakeup();
  private readonly ensuredTopics = new Set<string>();
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private producer: Producer | undefined;
  private consecutiveFailures = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.schema = assertIdentifier(options.schema);
    this.channel = outboxChannel(this.schema);
    this.lockKey = `${this.schema}.outbox_relay`;
    this.log = options.logger.child({ component: 'outbox-relay', schema: this.schema });
    this.kafka = kafkaFrom(options, options.clientId ?? `${this.schema}-outbox-relay`, options.logger);
    this.opts = {
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      batchSize: options.batchSize ?? 100,
      lockRetryMs: options.lockRetryMs ?? 3000,
      backoffInitialMs: options.backoffInitialMs ?? 500,
      backoffMaxMs: options.backoffMaxMs ?? 5000,
    };
  }

  /** Starts the relay loop in the background (standby until the lock is free); never throws for Kafka/DB outages. */
  async start(): Promise<void> {
    if (this.loop) return;
    this.abort = new AbortController();
    this.loop = this.run().catch((err) => this.log.error({ err }, 'outbox relay loop ended unexpectedly'));
  }

  /** Stops: lets an in-flight drain finish, disconnects the producer, closes the dedicated connection (releasing the lock). */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.abort.abort();
    this.wakeup.notify();
    await this.loop;
    this.loop = undefined;
    await this.resetProducer();
  }

  /** Asks for a drain now (the NOTIFY path does the same). */
  poke(): void {
    this.wakeup.notify();
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const client = new Client({
        connectionString: this.options.databaseUrl,
        application_name: `${this.schema}-outbox-relay`,
        keepAlive: true,
        connectionTimeoutMillis: 10000,
      });
      let lost: Error | undefined;
      client.on('error', (err) => {
        lost ??= err;
        this.wakeup.notify();
      });
      client.on('end', () => {
        lost ??= new Error('relay connection ended');
        this.wakeup.notify();
      });
      client.on('notification', () => this.wakeup.notify());
      try {
        await client.connect();
        const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
          this.lockKey,
        ]);
        if (rows[0]?.locked) {
          await client.query(`LISTEN ${this.channel}`);
          this.stats.leader = true;
          this.stats.leaderships++;
          this.log.info('outbox relay active (holds the relay lock)');
          await this.lead(client, () => lost);
          if (lost && !this.stopped) this.log.warn({ err: lost }, 'outbox relay lost its connection; re-acquiring');
        } else {
          this.log.debug('outbox relay on standby (another replica holds the lock)');
        }
      } catch (err) {
        if (!this.stopped) this.log.warn({ err }, 'outbox relay connection failed; retrying');
      } finally {
        if (this.stats.leader) this.log.info('outbox relay released the relay lock');
        this.stats.leader = false;
        client.removeAllListeners('notification');
        await client.end().catch(() => undefined);
      }
      if (!this.stopped) await sleep(this.opts.lockRetryMs, this.abort.signal);
    }
  }

  /** While leader: drain now, then on each notification / poll tick, until stopped or the connection is lost. */
  private async lead(client: Client, lost: () => Error | undefined): Promise<void> {
    this.wakeup.notify();
    while (!this.stopped && !lost()) {
      await this.wakeup.wait(this.opts.pollIntervalMs, this.abort.signal);
      if (this.stopped || lost()) return;
      // Liveness of the lock connection: a dead one throws here and we re-acquire.
      await client.query('SELECT 1');
      await this.drain(lost);
    }
  }

  /** Publishes batches until the outbox is empty; on failure backs off and retries the same rows. */
  private async drain(lost: () => Error | undefined): Promise<void> {
    const backoff = new Backoff(this.opts.backoffInitialMs, this.opts.backoffMaxMs);
    while (!this.stopped && !lost()) {
      try {
        const n = await this.publishBatch();
        this.consecutiveFailures = 0;
        backoff.reset();
        if (n < this.opts.batchSize) return;
      } catch (err) {
        this.stats.failures++;
        this.consecutiveFailures++;
        const delay = backoff.next();
        this.log.warn({ err, attempt: this.consecutiveFailures, retryInMs: delay }, 'outbox publish failed; will retry the same rows');
        // A producer stuck in a bad state (fenced, unknown producer id…) is replaced now and then.
        const e = err as { retriable?: boolean };
        if (e.retriable === false || this.consecutiveFailures % 3 === 0) await this.resetProducer();
        await sleep(delay, this.abort.signal);
      }
    }
  }

  private async publishBatch(): Promise<number> {
    const { rows } = await this.options.pool.query<OutboxRow>(
      `SELECT id, topic, message_key, event_id, event_type, payload FROM ${this.schema}.outbox ORDER BY id LIMIT $1`,
      [this.opts.batchSize],
    );
    if (!rows.length) return 0;

    const byTopic = new Map<string, Message[]>();
    for (const row of rows) {
      let messages = byTopic.get(row.topic);
      if (!messages) byTopic.set(row.topic, (messages = []));
      messages.push({
        key: row.message_key,
        value: row.payload,
        headers: { event_type: row.event_type, event_id: row.event_id, 'content-type': 'application/x-protobuf' },
      });
    }
    const missing = [...new Set([...(this.options.topics ?? []), ...byTopic.keys()])].filter((t) => !this.ensuredTopics.has(t));
    if (missing.length) {
      await ensureTopics(this.kafka, missing, { numPartitions: this.options.numPartitions });
      missing.forEach((t) => this.ensuredTopics.add(t));
    }

    const producer = await this.getProducer();
    const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    // One topic-partition's messages travel in one request, in id order; maxInFlightRequests 1 keeps requests ordered.
    await producer.sendBatch({ topicMessages, acks: -1 });

    await this.options.pool.query(`DELETE FROM ${this.schema}.outbox WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
    this.stats.published += rows.length;
    this.stats.batches++;
    for (const [topic, messages] of byTopic) eventsCounter.inc({ stage: 'published', topic }, messages.length);
    this.log.debug({ count: rows.length, firstId: rows[0].id, lastId: rows[rows.length - 1].id }, 'published outbox batch');
    return rows.length;
  }

  private async getProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      // Bounded: a down broker fails the send within seconds; the relay's own backoff loop retries.
      retry: { retries: 3, initialRetryTime: 300, maxRetryTime: 2000 },
    });
    try {
      await producer.connect();
    } catch (err) {
      await producer.disconnect().catch(() => undefined);
      throw err;
    }
    this.producer = producer;
    return producer;
  }

  private async resetProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer) await producer.disconnect().catch(() => undefined);
  }
}
