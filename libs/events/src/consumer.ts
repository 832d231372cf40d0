import type { Pool, PoolClient } from 'pg';
import type { Consumer, EachBatchPayload, EachMessagePayload, KafkaMessage, Kafka } from 'kafkajs';
import { withTransaction } from '@glp/db';
import { eventsCounter, type Logger } from '@glp/service-kit';
import { Backoff, sleep } from './backoff';
import { decodeEnvelope, knownPayloadType, unpackPayload, type EventEnvelope, type PayloadType } from './envelope';
import { DeadLetterPublisher, dlqTopicFor } from './dead-letter';
import { ensureTopics, kafkaFrom, type KafkaSource, type TopicSettings } from './kafka';
import { startProcessedEventsRetention } from './processed-events-retention';

/** processed_events retention by default: twice Kafka's default topic retention (7 days). */
export const DEFAULT_PROCESSED_EVENTS_RETENTION_MS = 14 * 24 * 3600 * 1000;

export interface EventContext<T = unknown> {
  /** The transaction the event is recorded in; do the handler's writes with it. */
  client: PoolClient;
  envelope: EventEnvelope;
  /** The decoded payload when its type is known (EventTypes or the consumer's payloadTypes). */
  payload: T;
  topic: string;
  partition: number;
  offset: string;
}

export type EventHandler = ((ctx: EventContext<unknown>) => Promise<void>) & {
  /** Set by onEvent(): the consumer decodes this payload type before the transaction. */
  payloadType?: PayloadType<unknown>;
};

/** Handlers by event type (the payload's fully-qualified name, e.g. "gitlab.events.v1.ProjectCreated"). */
export type EventHandlers = Record<string, EventHandler>;

/**
 * A typed handler entry, keyed by the payload's type name:
 * handlers: { ...onEvent(EventTypes.ProjectCreated, async ({ client, payload }) => …), ...onEvent(…) }.
 */
export function onEvent<T>(type: PayloadType<T>, fn: (ctx: EventContext<T>) => Promise<void>): EventHandlers {
  const handler: EventHandler = (ctx) => fn({ ...ctx, payload: (ctx.payload as T | undefined) ?? unpackPayload(ctx.envelope, type) });
  handler.payloadType = type as PayloadType<unknown>;
  return { [type.typeName]: handler };
}

export interface EventConsumerOptions extends KafkaSource, TopicSettings {
  /** The service's pool; processed_events lives in its schema. */
  pool: Pool;
  groupId: string;
  /** Key of this consumer in processed_events (usually one per handler set). */
  consumerName: string;
  topics: string[];
  logger: Logger;
  handlers: EventHandlers;
  /** Where a new group starts (default false: only new messages). */
  fromBeginning?: boolean;
  /** Payload types to decode besides EventTypes and those of onEvent() handlers. */
  payloadTypes?: PayloadType<unknown>[];
  clientId?: string;
  /**
   * Consecutive events of a fetched batch handled in one transaction (default 100; 1: one transaction per event). One
   * commit, and so one sync of the database's log, for many events is what lets a consumer keep up with a burst.
   */
  maxEventsPerTransaction?: number;
  /** Backoff between attempts of a failing handler (default 200 ms doubling to 5000 ms). */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /** start() waits this long for the first group join (default 30000 ms; 0 = don't wait). */
  joinTimeoutMs?: number;
  /**
   * Default 10000 ms. A consumer that crashes (Kafka gone, SIGKILL) rejoins as a new member, and the group waits for
   * the old member's session to time out before it rebalances: this bounds how long consumption stops after the broker
   * comes back (30 s with kafkajs' default, measured in fault-kafka-outage.test.ts).
   */
  sessionTimeoutMs?: number;
  /** Default 3000 ms (under a third of the session timeout). */
  heartbeatIntervalMs?: number;
  /** Fetch long-poll; also bounds how long stop() waits for an idle fetch (default 1000 ms). */
  maxWaitTimeMs?: number;
  /** Create the topics and their DLQ topics (TopicSettings) before subscribing (default true). */
  createTopics?: boolean;
  /**
   * processed_events records older than this are deleted (default DEFAULT_PROCESSED_EVENTS_RETENTION_MS; 0 = kept
   * forever). Must exceed the consumed topics' retention.ms: a duplicate older than its record would be handled again.
   */
  processedEventsRetentionMs?: number;
  /** How often expired records are deleted (default 3600000 ms), and how many per statement (default 1000). */
  processedEventsPurgeIntervalMs?: number;
  processedEventsPurgeBatch?: number;
}

export interface ConsumerStats {
  /** Events whose handler ran and committed. */
  processed: number;
  /** Already processed by this consumer (same event id); skipped. */
  duplicates: number;
  /** No handler for the event type; skipped WITHOUT recording it (a handler added later still sees it). */
  skipped: number;
  /** Messages that are not valid envelopes (or carry an undecodable payload), produced to "<topic>.dlq". */
  deadLettered: number;
  /** Failed attempts to produce to the DLQ (each is retried; the offset waits). */
  deadLetterFailures: number;
  /** Failed handler attempts (each is retried). */
  failures: number;
}

class ConsumerStoppingError extends Error {
  constructor() {
    super('consumer stopping; message left uncommitted');
    this.name = 'ConsumerStoppingError';
  }
}

type Outcome = 'processed' | 'duplicates';
type Where = { topic: string; partition: number; offset: string };

/** A fetched message, decoded: an event with its handler, one without a handler, or bytes that are no event. */
type Prepared =
  | { kind: 'handled'; where: Where; handler: EventHandler; envelope: EventEnvelope; payload: unknown }
  | { kind: 'unhandled'; where: Where; envelope: EventEnvelope }
  | { kind: 'invalid'; where: Where; message: KafkaMessage; error: unknown };
type HandledEvent = Extract<Prepared, { kind: 'handled' }>;

/**
 * An idempotent Kafka consumer: for every message with a handler, the transaction that records
 * (consumer, event_id) in processed_events runs the handler with the same client. Consecutive events of a fetched
 * batch share one transaction (up to maxEventsPerTransaction), in offset order; the offsets move once it commits.
 * An already-recorded event is skipped; an event type without a handler is skipped and NOT
 * recorded (a handler added later processes it after an offset reset).
 * A failing handler is rolled back and retried with backoff, its events then one transaction each so that those before
 * the failing one go on; the offset never moves past it.
 * A message that cannot be decoded is produced to "<topic>.dlq" (original key and bytes,
 * DLQ_HEADERS) before the offset moves past it; a failed DLQ produce is retried likewise.
 */
export class EventConsumer {
  readonly stats: ConsumerStats = { processed: 0, duplicates: 0, skipped: 0, deadLettered: 0, deadLetterFailures: 0, failures: 0 };

  private readonly kafka: Kafka;
  private readonly log: Logger;
  private readonly payloadTypes = new Map<string, PayloadType<unknown>>();
  private consumer: Consumer | undefined;
  private abort = new AbortController();
  private removeListeners: (() => void)[] = [];
  private background: AbortController | undefined;
  private readonly deadLetters: DeadLetterPublisher;
  private retention: { stop(): Promise<void> } | undefined;

  constructor(private readonly options: EventConsumerOptions) {
    if (!options.topics.length) throw new Error('topics must not be empty');
    this.log = options.logger.child({ component: 'event-consumer', consumer: options.consumerName, groupId: options.groupId });
    this.kafka = kafkaFrom(options, options.clientId ?? options.groupId, options.logger);
    for (const t of options.payloadTypes ?? []) this.payloadTypes.set(t.typeName, t);
    for (const h of Object.values(options.handlers)) if (h.payloadType) this.payloadTypes.set(h.payloadType.typeName, h.payloadType);
    this.deadLetters = new DeadLetterPublisher(this.kafka);
  }

  /** Connects, subscribes and starts consuming; waits (bounded) for the first group join. */
  async start(): Promise<void> {
    if (this.consumer) return;
    this.abort = new AbortController();
    if (this.options.createTopics ?? true) {
      const { numPartitions, replicationFactor, minInsyncReplicas } = this.options;
      const topics = [...this.options.topics, ...this.options.topics.map(dlqTopicFor)];
      await ensureTopics(this.kafka, topics, { numPartitions, replicationFactor, minInsyncReplicas });
    }
    const consumer = this.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: this.options.sessionTimeoutMs ?? 10000,
      heartbeatInterval: this.options.heartbeatIntervalMs ?? 3000,
      maxWaitTimeInMs: this.options.maxWaitTimeMs ?? 1000,
      // A crash on a retriable error (broker gone…) restarts the consumer, unless we are stopping.
      retry: { restartOnFailure: async () => !this.abort.signal.aborted },
    });
    this.consumer = consumer;
    let joined!: () => void;
    const firstJoin = new Promise<void>((resolve) => (joined = resolve));
    this.removeListeners.push(
      consumer.on(consumer.events.GROUP_JOIN, (e) => {
        this.log.debug({ memberId: e.payload.memberId, assignment: e.payload.memberAssignment }, 'joined consumer group');
        joined();
      }),
      consumer.on(consumer.events.CRASH, (e) => {
        if (!this.abort.signal.aborted) this.log.warn({ err: e.payload.error, restart: e.payload.restart }, 'kafka consumer crashed');
      }),
    );
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: this.options.topics, fromBeginning: this.options.fromBeginning ?? false });
      await consumer.run({ eachBatchAutoResolve: false, eachBatch: (p) => this.handleBatch(p) });
    } catch (err) {
      await this.teardown();
      throw err;
    }
    const joinTimeout = this.options.joinTimeoutMs ?? 30000;
    if (joinTimeout > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), joinTimeout)));
      const late = await Promise.race([firstJoin.then(() => false), timedOut]);
      clearTimeout(timer);
      if (late) this.log.warn({ joinTimeout }, 'consumer has not joined its group yet; continuing');
    }
    const retentionMs = this.options.processedEventsRetentionMs ?? DEFAULT_PROCESSED_EVENTS_RETENTION_MS;
    if (!this.retention && retentionMs > 0) {
      this.retention = startProcessedEventsRetention({
        pool: this.options.pool, retentionMs, logger: this.log,
        intervalMs: this.options.processedEventsPurgeIntervalMs ?? 3600_000, batchSize: this.options.processedEventsPurgeBatch ?? 1000,
      });
    }
  }

  /**
   * Starts without blocking the caller and keeps trying while Kafka is unreachable
   * (backoff 1 s → 30 s), so a service serves its API during a Kafka outage and catches up
   * on events when the broker returns. stop() ends the attempts.
   */
  startInBackground(): void {
    if (this.background) return;
    const cancel = new AbortController();
    this.background = cancel;
    const backoff = new Backoff(1000, 30000);
    void (async () => {
      while (!cancel.signal.aborted) {
        try {
          await this.start();
          return;
        } catch (err) {
          const delay = backoff.next();
          this.log.warn({ err, retryInMs: delay }, 'kafka consumer could not start; retrying');
          await sleep(delay, cancel.signal);
        }
      }
    })();
  }

  /** Stops consuming; an in-flight handler finishes (or its retry loop is abandoned, uncommitted). */
  async stop(): Promise<void> {
    this.background?.abort();
    this.background = undefined;
    const retention = this.retention;
    this.retention = undefined;
    await retention?.stop();
    await this.teardown();
  }

  private async teardown(): Promise<void> {
    const consumer = this.consumer;
    if (!consumer) return;
    this.abort.abort();
    this.consumer = undefined;
    try {
      await consumer.disconnect();
    } finally {
      this.removeListeners.forEach((remove) => remove());
      this.removeListeners = [];
      await this.deadLetters.close();
    }
  }

  /**
   * Handles a fetched batch in offset order: runs of handled events in one transaction each (flushed before anything
   * else and at maxEventsPerTransaction), marking offsets consumed only once their transaction committed.
   */
  private async handleBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const max = Math.max(1, this.options.maxEventsPerTransaction ?? 100);
    let run: HandledEvent[] = [];
    const flush = async () => {
      if (!run.length) return;
      const events = run;
      run = [];
      await this.handleEvents(events, heartbeat);
      resolveOffset(events[events.length - 1]!.where.offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    };
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) break;
      const prepared = this.prepare(batch.topic, batch.partition, message);
      if (prepared.kind === 'handled') {
        run.push(prepared);
        if (run.length >= max) await flush();
        continue;
      }
      await flush();
      if (prepared.kind === 'invalid') {
        // Not retryable: the same bytes never decode. Park them in the DLQ rather than block the partition.
        await this.deadLetter({ topic: batch.topic, partition: batch.partition, message, heartbeat }, prepared.error);
      } else {
        this.stats.skipped++;
        eventsCounter.inc({ stage: 'skipped', topic: batch.topic });
        this.log.debug({ eventType: prepared.envelope.eventType, eventId: prepared.envelope.eventId, ...prepared.where }, 'no handler; event skipped (not recorded)');
      }
      resolveOffset(message.offset);
    }
    if (isRunning() && !isStale()) await flush();
    await heartbeat();
  }

  private prepare(topic: string, partition: number, message: KafkaMessage): Prepared {
    const where: Where = { topic, partition, offset: message.offset };
    let envelope: EventEnvelope;
    let payload: unknown;
    try {
      if (!message.value?.length) throw new Error('empty message');
      envelope = decodeEnvelope(message.value);
      const type = envelope.payload ? this.payloadTypeOf(envelope.payload.typeUrl) : undefined;
      payload = type ? unpackPayload(envelope, type) : undefined;
    } catch (error) {
      return { kind: 'invalid', where, message, error };
    }
    const handler = Object.hasOwn(this.options.handlers, envelope.eventType) ? this.options.handlers[envelope.eventType] : undefined;
    return handler ? { kind: 'handled', where, handler, envelope, payload } : { kind: 'unhandled', where, envelope };
  }

  /**
   * Consecutive handled events: one transaction for all of them; if it fails, each in its own transaction, retried until
   * it commits (the failed attempt counts as one of the failing event's).
   */
  private async handleEvents(events: HandledEvent[], heartbeat: EachMessagePayload['heartbeat']): Promise<void> {
    if (events.length > 1) {
      try {
        const outcomes = await withTransaction(this.options.pool, async (client) => {
          const out: Outcome[] = [];
          for (const e of events) out.push(await this.process(client, e.handler, e.envelope, e.payload, e.where));
          return out;
        });
        outcomes.forEach((outcome, i) => this.count(outcome, events[i]!.where.topic));
        return;
      } catch (err) {
        const first = events[0]!;
        this.stats.failures++;
        eventsCounter.inc({ stage: 'failed', topic: first.where.topic });
        this.log.warn(
          { err, events: events.length, ...first.where, lastOffset: events[events.length - 1]!.where.offset },
          'event handler failed in a batch; rolled back, retrying its events one at a time',
        );
      }
    }
    for (const e of events) await this.handleEvent(e, heartbeat);
  }

  private async handleEvent({ handler, envelope, payload, where }: HandledEvent, heartbeat: EachMessagePayload['heartbeat']): Promise<void> {
    await this.retryUntilDone(
      heartbeat,
      async () => this.count(await withTransaction(this.options.pool, (client) => this.process(client, handler, envelope, payload, where)), where.topic),
      (err, attempt, retryInMs) => {
        this.stats.failures++;
        eventsCounter.inc({ stage: 'failed', topic: where.topic });
        this.log.warn(
          { err, attempt, retryInMs, eventId: envelope.eventId, eventType: envelope.eventType, ...where },
          'event handler failed; rolled back, will retry',
        );
      },
    );
  }

  private count(outcome: Outcome, topic: string): void {
    this.stats[outcome]++;
    eventsCounter.inc({ stage: outcome === 'processed' ? 'consumed' : 'duplicate', topic });
  }

  /** Produces an undecodable message to its DLQ, retrying until it is there (or we stop); only then may the offset move on. */
  private async deadLetter(
    { topic, partition, message, heartbeat }: Pick<EachMessagePayload, 'topic' | 'partition' | 'message' | 'heartbeat'>,
    error: unknown,
  ): Promise<void> {
    const where: Where = { topic, partition, offset: message.offset };
    const input = { topic, partition, message, error, groupId: this.options.groupId, consumerName: this.options.consumerName };
    await this.retryUntilDone(
      heartbeat,
      async () => {
        const dlq = await this.deadLetters.publish(input);
        this.stats.deadLettered++;
        eventsCounter.inc({ stage: 'dead_lettered', topic });
        this.log.error({ err: error, dlq, ...where }, 'message is not a valid event; produced it to the dead-letter topic');
      },
      (err, attempt, retryInMs) => {
        this.stats.deadLetterFailures++;
        eventsCounter.inc({ stage: 'dead_letter_failed', topic });
        this.log.warn({ err, attempt, retryInMs, ...where }, 'could not produce an invalid message to the dead-letter topic; will retry');
      },
    );
  }

  /**
   * Runs `attempt` until it succeeds, backing off between failures; the offset never moves past a message meanwhile.
   * Stopping the consumer abandons the loop (the message stays uncommitted).
   */
  private async retryUntilDone(
    heartbeat: EachMessagePayload['heartbeat'],
    attempt: () => Promise<void>,
    onFailure: (err: unknown, attempt: number, retryInMs: number) => void,
  ): Promise<void> {
    const backoff = new Backoff(this.options.retryInitialMs ?? 200, this.options.retryMaxMs ?? 5000);
    for (let n = 1; ; n++) {
      if (this.abort.signal.aborted) throw new ConsumerStoppingError();
      try {
        await attempt();
        return;
      } catch (err) {
        const delay = backoff.next();
        onFailure(err, n, delay);
        await sleep(delay, this.abort.signal);
        if (this.abort.signal.aborted) throw new ConsumerStoppingError();
        // Keeps the group membership during long retry runs (a no-op until the interval passes).
        await heartbeat();
      }
    }
  }

  private async process(client: PoolClient, handler: EventHandler, envelope: EventEnvelope, payload: unknown, where: Where): Promise<Outcome> {
    const inserted = await client.query(
      'INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [this.options.consumerName, envelope.eventId],
    );
    if (inserted.rowCount === 0) return 'duplicates';
    await handler({ client, envelope, payload, ...where });
    return 'processed';
  }

  private payloadTypeOf(typeUrl: string): PayloadType<unknown> | undefined {
    const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
    return this.payloadTypes.get(name) ?? knownPayloadType(name);
  }
}
