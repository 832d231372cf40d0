import type { PoolClient } from 'pg';
import { assertIdentifier } from '@glp/db';
import { buildEnvelope, encodeEnvelope, type BuildEnvelopeInput, type EventEnvelope } from './envelope';

/**
 * The largest encoded envelope the outbox takes. Below Kafka's default `max.message.bytes` (1 MiB) with room for the
 * record's key and headers, so that every event fits a topic created with the defaults; producers bound what they put
 * in an event (a push's commits and files) well under it.
 */
export const MAX_EVENT_BYTES = 512 * 1024;

/** An event beyond MAX_EVENT_BYTES: the caller's transaction fails instead of outboxing a record Kafka may refuse. */
export class EventTooLargeError extends Error {
  constructor(
    readonly eventType: string,
    readonly bytes: number,
  ) {
    super(`event ${eventType} too large for the outbox: ${bytes} bytes (at most ${MAX_EVENT_BYTES})`);
    this.name = 'EventTooLargeError';
  }
}

/** The NOTIFY channel the relay of `schema` listens on. */
export function outboxChannel(schema: string): string {
  const channel = `${assertIdentifier(schema)}_outbox`;
  if (channel.length > 63) throw new Error(`schema name too long for an outbox channel: ${schema}`);
  return channel;
}

export interface AppendEventInput<T> extends BuildEnvelopeInput<T> {
  /** Kafka topic, see topicFor(). */
  topic: string;
}

/**
 * Writes an event to the outbox of the client's schema (its search_path) inside the
 * CALLER's transaction, and notifies the relay (NOTIFY is delivered at commit; a
 * rolled-back transaction publishes nothing). The Kafka key is the aggregate key.
 */
export async function appendEvent<T>(client: PoolClient, input: AppendEventInput<T>): Promise<EventEnvelope> {
  if (!input.topic) throw new Error('topic is required');
  const envelope = buildEnvelope(input);
  await appendEnvelope(client, input.topic, envelope);
  return envelope;
}

/**
 * appendEvent for an envelope built earlier (its event id fixed, e.g. written again after a failed attempt). Throws
 * EventTooLargeError beyond MAX_EVENT_BYTES.
 */
export async function appendEnvelope(client: PoolClient, topic: string, envelope: EventEnvelope): Promise<void> {
  if (!topic) throw new Error('topic is required');
  const bytes = encodeEnvelope(envelope);
  if (bytes.length > MAX_EVENT_BYTES) throw new EventTooLargeError(envelope.eventType, bytes.length);
  await client.query(
    'INSERT INTO outbox (topic, message_key, event_id, event_type, payload) VALUES ($1, $2, $3, $4, $5)',
    [topic, envelope.aggregateKey, envelope.eventId, envelope.eventType, bytes],
  );
  await client.query(`SELECT pg_notify(current_schema() || '_outbox', '')`);
}
