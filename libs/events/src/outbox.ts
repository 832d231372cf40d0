import type { PoolClient } from 'pg';
import { assertIdentifier } from '@glp/db';
import { buildEnvelope, encodeEnvelope, type BuildEnvelopeInput, type EventEnvelope } from './envelope';

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
  await client.query(
    'INSERT INTO outbox (topic, message_key, event_id, event_type, payload) VALUES ($1, $2, $3, $4, $5)',
    [input.topic, envelope.aggregateKey, envelope.eventId, envelope.eventType, encodeEnvelope(envelope)],
  );
  await client.query(`SELECT pg_notify(current_schema() || '_outbox', '')`);
  return envelope;
}
