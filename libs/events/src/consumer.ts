import type { Pool, PoolClient } from 'pg';
import type { Consumer, EachMessagePayload, Kafka } from 'kafkajs';
import { withTransaction } from '@glp/db';
import { eventsCounter, type Logger } from '@glp/service-kit';
import { Backoff, sleep } from './backoff';
import { decodeEnvelope, knownPayloadType, unpackPayload, type EventEnvelope, type PayloadType } from './envelope';
import { ensureTopics, kafkaFrom, type KafkaSource } from './kafka';

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

export interface EventConsumerOptions extends KafkaSource {
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
  /** Backoff between attempts of a failing handler (default 200 ms doubling to 5000 ms). */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /** start() waits this long for the first group join (default 30000 ms; 0 = don't wait). */
  joinTimeoutMs?: number;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Fetch long-poll; also bounds how long stop() waits for an idle fetch (default 1000 ms). */
  maxWaitTimeMs?: number;
  /** Create the topics before subscribing (default true). */
  createTopics?: boolean;
}

export interface ConsumerStats {
  /** Events whose handler ran and committed. */
  processed: number;
  /** Already processed by this consumer (same event id); skipped. */
  duplicates: number;
  /** No handler for the event type; recorded and skipped. */
  skipped: number;
  /** Messages that are not valid envelopes (or carry an undecodable payload); skipped. */
  invalid: number;
  /** Failed handler attempts (each is retried). */
  failures: number;
}

class ConsumerStoppingError extends Error {
  constructor() {
    super('consumer stopping; message left uncommitted');
    this.name = 'ConsumerStoppingError';
  }
}

type Outcome = 'processed' | 'duplicates' | 'skipped';

/**
 * An idempotent Kafka consumer: for every message, ONE transaction records
 * (consumer, event_id) in processed_events and runs the handler with the same client.
 * An already-recorded event is skipped; an unknown event type is recorded and skipped.
 * A failing handler is rolled back and retried with backoff; the offset never moves past it.
 */
export class EventConsumer {
  readonly stats: ConsumerStats = { processed: 0, duplicates: 0, skipped: 0, invalid: 0, failures: 0 };

  private readonly kafka: Kafka;
  private readonly log: Logger;
  private readonly payloadTypes = new Map<string, PayloadType<unknown>>();
  private consumer: Consumer | undefined;
  private abort = new AbortController();
  private removeListeners: (() => void)[] = [];
  private background: AbortController | undefined;

  constructor(private readonly options: EventConsumerOptions) {
    if (!options.topics.length) throw new Error('topics must not be empty');
    this.log = options.logger.child({ component: 'event-consumer', consumer: options.consumerName, groupId: options.groupId });
    this.kafka = kafkaFrom(options, options.clientId ?? options.groupId, options.logger);
    for (const t of options.payloadTypes ?? []) this.payloadTypes.set(t.typeName, t);
    for (const h of Object.values(options.handlers)) if (h.payloadType) this.payloadTypes.set(h.payloadType.typeName, h.payloadType);
  }

  /** Connects, subscribes and starts consuming; waits (bounded) for the first group join. */
  async start(): Promise<void> {
    if (this.consumer) return;
    this.abort = new AbortController();
    if (this.options.createTopics ?? true) await ensureTopics(this.kafka, this.options.topics);
    const consumer = this.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: this.options.sessionTimeoutMs ?? 30000,
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
      await consumer.run({ eachMessage: (p) => this.handleMessage(p) });
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
  }

  /** Stops consuming; an in-flight handler finishes (or its retry loop is abandoned, uncommitted). */
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

  async stop(): Promise<void> {
    this.background?.abort();
    this.background = undefined;
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
    }
  }

  private async handleMessage({ topic, partition, message, heartbeat }: EachMessagePayload): Promise<void> {
    const where = { topic, partition, offset: message.offset };
    let envelope: EventEnvelope;
    let payload: unknown;
    try {
      if (!message.value) throw new Error('empty message');
      envelope = decodeEnvelope(message.value);
      const type = envelope.payload ? this.payloadTypeOf(envelope.payload.typeUrl) : undefined;
      payload = type ? unpackPayload(envelope, type) : undefined;
    } catch (err) {
      // Not retryable: the same bytes never decode. Skip it rather than block the partition.
      this.stats.invalid++;
      eventsCounter.inc({ stage: 'invalid', topic });
      this.log.error({ err, ...where }, 'skipping a message that is not a valid event envelope');
      return;
    }

    const backoff = new Backoff(this.options.retryInitialMs ?? 200, this.options.retryMaxMs ?? 5000);
    for (let attempt = 1; ; attempt++) {
      if (this.abort.signal.aborted) throw new ConsumerStoppingError();
      try {
        const outcome = await withTransaction(this.options.pool, (client) => this.process(client, envelope, payload, where));
        this.stats[outcome]++;
        eventsCounter.inc({ stage: outcome === 'processed' ? 'consumed' : outcome === 'duplicates' ? 'duplicate' : 'skipped', topic });
        if (outcome === 'skipped') this.log.debug({ eventType: envelope.eventType, eventId: envelope.eventId }, 'no handler; event recorded and skipped');
        return;
      } catch (err) {
        this.stats.failures++;
        eventsCounter.inc({ stage: 'failed', topic });
        const delay = backoff.next();
        this.log.warn(
          { err, attempt, retryInMs: delay, eventId: envelope.eventId, eventType: envelope.eventType, ...where },
          'event handler failed; rolled back, will retry',
        );
        await sleep(delay, this.abort.signal);
        if (this.abort.signal.aborted) throw new ConsumerStoppingError();
        // Keeps the group membership during long retry runs (a no-op until the interval passes).
        await heartbeat();
      }
    }
  }

  private async process(
    client: PoolClient,
    envelope: EventEnvelope,
    payload: unknown,
    where: { topic: string; partition: number; offset: string },
  ): Promise<Outcome> {
    const inserted = await client.query(
      'INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [this.options.consumerName, envelope.eventId],
    );
    if (inserted.rowCount === 0) return 'duplicates';
    const handler = this.options.handlers[envelope.eventType];
    if (!handler) return 'skipped';
    await handler({ client, envelope, payload, ...where });
    return 'processed';
  }

  private payloadTypeOf(typeUrl: string): PayloadType<unknown> | undefined {
    const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
    return this.payloadTypes.get(name) ?? knownPayloadType(name);
  }
}
