import { Client } from 'pg';
import type { Kafka, Message, Producer, TopicMessages } from 'kafkajs';
import { assertIdentifier } from '@glp/db';
import { eventsCounter, type Logger } from '@glp/service-kit';
import { Backoff, sleep, Wakeup } from './backoff';
import { dlqTopicFor, relayDeadLetterMessage, tooLargeRefusal } from './dead-letter';
import { connectIdempotentProducer, ensureTopics, kafkaFrom, type KafkaSource, type TopicSettings } from './kafka';
import { outboxChannel } from './outbox';
import {
  lockConnectionConfig,
  LockLostError,
  RelayLock,
  relayConnectionTimeouts,
  type RelayConnectionOptions,
  type RelayConnectionTimeouts,
} from './relay-lock';

export interface OutboxRelayOptions extends KafkaSource, TopicSettings, RelayConnectionOptions {
  /** For the relay's own connection: advisory lock, LISTEN, and every batch's transaction. */
  databaseUrl: string;
  schema: string;
  logger: Logger;
  /** kafkajs clientId when the relay builds its own client from `brokers`. */
  clientId?: string;
  /** Drain even without a notification this often (default 1000 ms); also how often an idle leader proves its lock. */
  pollIntervalMs?: number;
  /** Rows per produce request (default 100); at most this many events are published twice after a lost lock. */
  batchSize?: number;
  /**
   * Bytes of keys and values per produce request (default 786432), under Kafka's default max.message.bytes, which
   * bounds a partition's record batch; a row larger than this goes alone.
   */
  maxBatchBytes?: number;
  /** A standby replica tries to take the lock this often (default 3000 ms). */
  lockRetryMs?: number;
  /** Backoff after a failed publish (default 500 ms doubling to 5000 ms). */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /**
   * Budget of one batch's produce, connecting the producer included (default 10000 ms).
   * The batch's transaction is open meanwhile, hence idleInTransactionTimeoutMs > this.
   */
  sendTimeoutMs?: number;
  /** Topics to create up front (those met in the outbox are created on first use anyway). */
  topics?: string[];
  /**
   * How long published rows stay in the outbox (default 0: deleted at once), so that a backup holds the events some
   * consumer may not have applied yet (`outboxRetention`); shorter than the consumers' processed_events retention.
   */
  retentionMs?: number;
  /** How often the leader deletes published rows older than retentionMs (default 3600000 ms). */
  purgeIntervalMs?: number;
}

export interface RelayStats {
  /** Outbox rows acknowledged by Kafka and marked published (or deleted, without retention) (committed). */
  published: number;
  /** Batches acknowledged and committed. */
  batches: number;
  /** Failed publish attempts (Kafka); the same rows are retried. */
  failures: number;
  /** Rows Kafka refused for their size, even alone: produced to "<topic>.dlq" and deleted. */
  deadLettered: number;
  /** Published rows deleted by the retention purge. */
  purged: number;
  /** True while this relay holds the schema's relay lock (false as soon as its connection fails). */
  leader: boolean;
  /** Times this relay became the leader. */
  leaderships: number;
  /** Times this relay stopped leading because its lock connection failed or the lock check failed. */
  lockLost: number;
}

interface OutboxRow {
  id: number;
  topic: string;
  message_key: string;
  event_id: string;
  event_type: string;
  payload: Buffer;
}

/** Kafka did not take the batch (retry the same rows); anything else thrown by a batch means the lock connection is in doubt. */
class PublishError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PublishError';
  }
}

/**
 * Publishes a schema's outbox to Kafka. Exactly one relay per schema publishes: it holds
 * pg_try_advisory_lock(hashtext('<schema>.outbox_relay')) on a dedicated connection,
 * LISTENs on '<schema>_outbox' there, and drains on every notification and every poll
 * interval.
 *
 * Fencing: every batch runs on that same connection, in one transaction:
 *   BEGIN → prove the lock (RelayLock.verify: this session, the pid that took it)
 *   → SELECT … WHERE published_at IS NULL ORDER BY id LIMIT n FOR UPDATE → produce (acks=all, idempotent, one
 *   request in flight) → mark those ids published (or DELETE them, without retention) → COMMIT. Published rows are kept
 *   `retentionMs` for backups (a restore republishes them; consumers skip those they applied) and then purged by the leader.
 * If the lock session dies at any point, its transaction aborts and the rows stay for the
 * next lock holder, which republishes them: duplicates come only from that one
 * unacknowledged batch, and per-key order holds. A failed publish rolls back and is retried
 * with backoff on the same rows, in the same order; nothing is skipped, except a row Kafka
 * refuses for its size even alone (a batch refused for its size is split first): that row
 * goes to "<topic>.dlq" with the reason and leaves the outbox. Any database or lock
 * failure makes the relay step down, close the connection and try to re-acquire. The lock
 * connection's timeouts (RelayConnectionOptions) keep a dead or half-open connection from
 * hanging it: during the send no statement runs, so idle_in_transaction_session_timeout is
 * what bounds the open transaction, and it must exceed sendTimeoutMs. Delivery is
 * at-least-once: consumers deduplicate by event id (EventConsumer).
 * Order: id order is commit order for writes that lock the same aggregate row, so the
 * events of one aggregate (one message key, one partition) keep their order.
 */
export class OutboxRelay {
  readonly stats: RelayStats = { published: 0, batches: 0, failures: 0, deadLettered: 0, purged: 0, leader: false, leaderships: 0, lockLost: 0 };

  private readonly opts: Required<
    Pick<OutboxRelayOptions, 'pollIntervalMs' | 'batchSize' | 'maxBatchBytes' | 'lockRetryMs' | 'backoffInitialMs' | 'backoffMaxMs' | 'sendTimeoutMs' | 'retentionMs' | 'purgeIntervalMs'>
  >;
  private readonly timeouts: RelayConnectionTimeouts;
  private readonly schema: string;
  private readonly channel: string;
  private readonly lockKey: string;
  private readonly applicationName: string;
  private readonly kafka: Kafka;
  private readonly log: Logger;
  private readonly wakeup = new Wakeup();
  private readonly ensuredTopics = new Set<string>();
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private producer: Producer | undefined;
  private consecutiveFailures = 0;
  /** Rows of the next batch: batchSize, halved after Kafka refused a batch for its size, doubled back after each success. */
  private batchLimit: number;

  constructor(private readonly options: OutboxRelayOptions) {
    this.schema = assertIdentifier(options.schema);
    this.channel = outboxChannel(this.schema);
    this.lockKey = `${this.schema}.outbox_relay`;
    this.applicationName = `${this.schema}-outbox-relay`;
    this.log = options.logger.child({ component: 'outbox-relay', schema: this.schema });
    this.kafka = kafkaFrom(options, options.clientId ?? this.applicationName, options.logger);
    this.opts = {
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      batchSize: options.batchSize ?? 100,
      maxBatchBytes: options.maxBatchBytes ?? 768 * 1024,
      lockRetryMs: options.lockRetryMs ?? 3000,
      backoffInitialMs: options.backoffInitialMs ?? 500,
      backoffMaxMs: options.backoffMaxMs ?? 5000,
      sendTimeoutMs: options.sendTimeoutMs ?? 10000,
      retentionMs: options.retentionMs ?? 0,
      purgeIntervalMs: options.purgeIntervalMs ?? 3600_000,
    };
    this.timeouts = relayConnectionTimeouts(options, this.opts.sendTimeoutMs);
    this.batchLimit = this.opts.batchSize;
  }

  /** Starts the relay loop in the background (standby until the lock is free); never throws for Kafka/DB outages. */
  async start(): Promise<void> {
    if (this.loop) return;
    this.abort = new AbortController();
    this.loop = this.run().catch((err) => this.log.error({ err }, 'outbox relay loop ended unexpectedly'));
  }

  /** Stops: lets an in-flight batch finish, disconnects the producer, closes the dedicated connection (releasing the lock). */
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
      const client = new Client(lockConnectionConfig(this.options.databaseUrl, this.applicationName, this.timeouts));
      let lost: Error | undefined;
      const onLost = (err: Error) => {
        lost ??= err;
        // Not the leader any more from this moment: the server releases the lock with the session.
        this.stats.leader = false;
        this.wakeup.notify();
      };
      client.on('error', onLost);
      client.on('end', () => onLost(new Error('relay connection ended')));
      client.on('notification', () => this.wakeup.notify());
      let led = false;
      try {
        await client.connect();
        const lock = new RelayLock(client, this.lockKey);
        if (await lock.tryAcquire()) {
          led = true;
          await client.query(`LISTEN ${this.channel}`);
          if (lost) throw lost;
          this.stats.leader = true;
          this.stats.leaderships++;
          this.log.info({ backendPid: lock.backendPid }, 'outbox relay active (holds the relay lock)');
          await this.lead(client, lock, () => lost);
          if (lost) throw lost;
        } else {
          this.log.debug('outbox relay on standby (another replica holds the lock)');
        }
      } catch (err) {
        if (!this.stopped) {
          if (led) {
            this.stats.lockLost++;
            this.log.warn({ err }, 'outbox relay lost its lock connection (or the lock); rows of an unfinished batch stay in the outbox; re-acquiring');
          } else {
            this.log.warn({ err }, 'outbox relay connection failed; retrying');
          }
        }
      } finally {
        if (this.stats.leader) this.log.info('outbox relay released the relay lock');
        this.stats.leader = false;
        client.removeAllListeners('notification');
        await this.close(client);
      }
      if (!this.stopped) await sleep(this.opts.lockRetryMs, this.abort.signal);
    }
  }

  /** Ends the connection (releasing the lock); bounded, and forced when a query hangs on it. */
  private async close(client: Client): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      client.end().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeouts.queryTimeoutMs))),
    ]);
    clearTimeout(timer);
  }

  /** While leader: drain now, then on each notification / poll tick, until stopped or the connection or the lock is lost (throws). */
  private async lead(client: Client, lock: RelayLock, lost: () => Error | undefined): Promise<void> {
    this.wakeup.notify();
    let lastPurge = 0;
    while (!this.stopped && !lost()) {
      await this.wakeup.wait(this.opts.pollIntervalMs, this.abort.signal);
      if (this.stopped || lost()) return;
      await this.drain(client, lock, lost);
      if (this.opts.retentionMs > 0 && Date.now() - lastPurge >= this.opts.purgeIntervalMs) {
        lastPurge = Date.now();
        await this.purge(client, lost);
      }
    }
  }

  /** Deletes published rows older than the retention, oldest first, in small statements so publishing never waits long. */
  private async purge(client: Client, lost: () => Error | undefined): Promise<void> {
    let deleted = 0;
    while (!this.stopped && !lost()) {
      const { rowCount } = await client.query(
        `DELETE FROM ${this.schema}.outbox WHERE id IN (
           SELECT id FROM ${this.schema}.outbox
           WHERE published_at IS NOT NULL AND published_at < now() - make_interval(secs => $1::double precision / 1000)
           ORDER BY published_at LIMIT $2)`,
        [this.opts.retentionMs, PURGE_BATCH_ROWS],
      );
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < PURGE_BATCH_ROWS) break;
    }
    this.stats.purged += deleted;
    if (deleted) this.log.info({ deleted, retentionMs: this.opts.retentionMs }, 'deleted published outbox rows past their retention');
  }

  /** Publishes batches until the outbox is empty; a Kafka failure backs off and retries the same rows; any other failure throws. */
  private async drain(client: Client, lock: RelayLock, lost: () => Error | undefined): Promise<void> {
    const backoff = new Backoff(this.opts.backoffInitialMs, this.opts.backoffMaxMs);
    while (!this.stopped && !lost()) {
      let more: boolean;
      try {
        more = await this.publishBatch(client, lock);
      } catch (err) {
        if (!(err instanceof PublishError)) throw err;
        this.stats.failures++;
        this.consecutiveFailures++;
        const delay = backoff.next();
        this.log.warn({ err, attempt: this.consecutiveFailures, retryInMs: delay }, 'outbox publish failed; will retry the same rows');
        // A producer stuck in a bad state (fenced, unknown producer id…) is replaced now and then.
        const cause = err.cause as { retriable?: boolean } | undefined;
        if (cause?.retriable === false || this.consecutiveFailures % 3 === 0) await this.resetProducer();
        await sleep(delay, this.abort.signal);
        continue;
      }
      this.consecutiveFailures = 0;
      backoff.reset();
      if (!more) return;
    }
  }

  /**
   * One fenced batch on the lock connection. Returns whether rows may remain (false: the outbox is empty); after
   * creating missing topics outside the transaction, or after Kafka refused the batch for its size (the next batch is
   * half as long), true without publishing. A single row Kafka refuses for its size goes to "<topic>.dlq" and is
   * deleted like a published one: it can never pass, and the rows after it must not wait for it.
   * Throws PublishError when Kafka did not take the batch (rolled back, retry), LockLostError
   * or a connection error when this relay must stop leading.
   */
  private async publishBatch(client: Client, lock: RelayLock): Promise<boolean> {
    await client.query('BEGIN');
    let open = true;
    try {
      await lock.verify();
      const limit = this.batchLimit;
      const { rows: selected } = await client.query<OutboxRow>(
        `SELECT id, topic, message_key, event_id, event_type, payload FROM ${this.schema}.outbox WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE`,
        [limit],
      );
      const rows = withinBytes(selected, this.opts.maxBatchBytes);
      const byTopic = groupByTopic(rows);
      const wanted = [...(this.options.topics ?? []), ...byTopic.keys()];
      const missing = [...new Set([...wanted, ...wanted.map(dlqTopicFor)])].filter((t) => !this.ensuredTopics.has(t));
      if (!rows.length || missing.length) {
        await client.query('COMMIT');
        open = false;
        if (!missing.length) return false;
        // Creating topics can take long while Kafka is slow: never with the transaction open.
        await this.createTopics(missing);
        return true;
      }

      let deadLettered = false;
      try {
        await this.send(byTopic);
      } catch (err) {
        const refusal = tooLargeRefusal(err);
        if (!refusal) throw err;
        if (rows.length > 1) {
          await client.query('ROLLBACK');
          open = false;
          this.batchLimit = Math.max(1, Math.floor(rows.length / 2));
          this.log.warn({ rows: rows.length, firstId: rows[0].id, nextBatch: this.batchLimit, reason: refusal.message }, 'Kafka refused an outbox batch for its size; splitting it');
          return true;
        }
        await this.deadLetter(lock, rows[0], refusal);
        deadLettered = true;
      }
      const ids = rows.map((r) => r.id);
      if (this.opts.retentionMs > 0) await client.query(`UPDATE ${this.schema}.outbox SET published_at = now() WHERE id = ANY($1::bigint[])`, [ids]);
      else await client.query(`DELETE FROM ${this.schema}.outbox WHERE id = ANY($1::bigint[])`, [ids]);
      await client.query('COMMIT');
      open = false;

      this.batchLimit = Math.min(this.opts.batchSize, this.batchLimit * 2);
      if (deadLettered) {
        this.stats.deadLettered++;
        eventsCounter.inc({ stage: 'dead_lettered', topic: rows[0].topic });
        return true;
      }
      this.stats.published += rows.length;
      this.stats.batches++;
      for (const [topic, messages] of byTopic) eventsCounter.inc({ stage: 'published', topic }, messages.length);
      this.log.debug({ count: rows.length, firstId: rows[0].id, lastId: rows[rows.length - 1].id }, 'published outbox batch');
      return selected.length === limit || rows.length < selected.length;
    } catch (err) {
      // Only a Kafka failure keeps the connection (roll back, retry). Anything else makes the
      // relay step down; closing the connection aborts the transaction without waiting on it.
      if (open && err instanceof PublishError) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          throw new LockLostError(`rollback failed (${errorText(rollbackErr)}) after: ${errorText(err)}`);
        }
      }
      throw err;
    }
  }

  /**
   * Produces a row Kafka refused for its size to its topic's DLQ with the reason (DLQ_HEADERS), its original bytes when
   * the DLQ takes them, else its headers alone. Throws PublishError when the DLQ cannot take it now (retry).
   */
  private async deadLetter(lock: RelayLock, row: OutboxRow, refusal: Error): Promise<void> {
    const dlq = dlqTopicFor(row.topic);
    const input = { message: rowMessage(row), topic: row.topic, error: refusal, relay: this.applicationName };
    let omitted = false;
    // Proving the lock again before each further send also keeps the open transaction from idling past its timeout.
    await lock.verify();
    try {
      await this.send(new Map([[dlq, [relayDeadLetterMessage(input)]]]));
    } catch (err) {
      if (!tooLargeRefusal(err)) throw err;
      omitted = true;
      await lock.verify();
      await this.send(new Map([[dlq, [relayDeadLetterMessage(input, true)]]]));
    }
    this.log.error(
      { outboxId: row.id, eventId: row.event_id, eventType: row.event_type, topic: row.topic, bytes: row.payload.length, dlq, valueOmitted: omitted, reason: refusal.message },
      'Kafka refused an outbox record for its size; produced it to the dead-letter topic and removed it from the outbox',
    );
  }

  private async createTopics(topics: string[]): Promise<void> {
    const { numPartitions, replicationFactor, minInsyncReplicas } = this.options;
    try {
      await ensureTopics(this.kafka, topics, { numPartitions, replicationFactor, minInsyncReplicas });
    } catch (err) {
      throw new PublishError(`could not create topics ${topics.join(', ')}: ${errorText(err)}`, { cause: err });
    }
    topics.forEach((t) => this.ensuredTopics.add(t));
  }

  /** Produces the batch within sendTimeoutMs; a late producer is discarded so that it cannot send the batch after we gave up. */
  private async send(byTopic: Map<string, Message[]>): Promise<void> {
    const ms = this.opts.sendTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        void this.resetProducer();
        reject(new PublishError(`Kafka did not acknowledge the batch within ${ms} ms`));
      }, ms);
    });
    const attempt = (async () => {
      const producer = await this.getProducer();
      if (timedOut) return;
      const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
      // One topic-partition's messages travel in one request, in id order; maxInFlightRequests 1 keeps requests ordered.
      await producer.sendBatch({ topicMessages, acks: -1, timeout: ms });
    })();
    try {
      await Promise.race([attempt, deadline]);
    } catch (err) {
      attempt.catch(() => undefined);
      throw err instanceof PublishError ? err : new PublishError(`produce failed: ${errorText(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  private async getProducer(): Promise<Producer> {
    // Bounded: a down broker fails the send within seconds; the relay's own backoff loop retries.
    return (this.producer ??= await connectIdempotentProducer(this.kafka, { retries: 3, initialRetryTime: 300, maxRetryTime: 2000 }));
  }

  private async resetProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer) await producer.disconnect().catch(() => undefined);
  }
}

/** Published rows deleted per statement by the retention purge. */
const PURGE_BATCH_ROWS = 1000;

/** The first rows whose keys and values fit `maxBytes` together; at least one. */
function withinBytes(rows: OutboxRow[], maxBytes: number): OutboxRow[] {
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    bytes += rows[i].payload.length + Buffer.byteLength(rows[i].message_key);
    if (bytes > maxBytes) return rows.slice(0, Math.max(1, i));
  }
  return rows;
}

function rowMessage(row: OutboxRow): Message {
  return {
    key: row.message_key,
    value: row.payload,
    headers: { event_type: row.event_type, event_id: row.event_id, 'content-type': 'application/x-protobuf' },
  };
}

function groupByTopic(rows: OutboxRow[]): Map<string, Message[]> {
  const byTopic = new Map<string, Message[]>();
  for (const row of rows) {
    let messages = byTopic.get(row.topic);
    if (!messages) byTopic.set(row.topic, (messages = []));
    messages.push(rowMessage(row));
  }
  return byTopic;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
