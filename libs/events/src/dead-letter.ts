import type { IHeaders, Kafka, KafkaMessage, Message, Producer } from 'kafkajs';
import { connectIdempotentProducer } from './kafka';

/** The dead-letter topic of `topic`: "<topic>.dlq". */
export function dlqTopicFor(topic: string): string {
  return `${topic}.dlq`;
}

/** Headers a dead-lettered message carries besides the original message's own headers. */
export const DLQ_HEADERS = Object.freeze({
  /** Why the message could not be consumed (the decoding error's message). */
  error: 'dlq-error',
  originalTopic: 'dlq-original-topic',
  originalPartition: 'dlq-original-partition',
  originalOffset: 'dlq-original-offset',
  consumerGroup: 'dlq-consumer-group',
  /** The EventConsumer's consumerName. */
  consumer: 'dlq-consumer',
  /** A record the outbox relay could not publish: the relay (`<schema>-outbox-relay`) that dead-lettered it. */
  relay: 'dlq-relay',
  /** Its size in bytes as refused. */
  originalSize: 'dlq-original-size',
  /** "true" when the DLQ could not take the original bytes either: the record carries the headers only. */
  valueOmitted: 'dlq-value-omitted',
});

const MAX_ERROR_LENGTH = 2000;

export interface DeadLetterInput {
  topic: string;
  partition: number;
  message: KafkaMessage;
  error: unknown;
  groupId: string;
  consumerName: string;
}

/** The DLQ record of a message: same key, the original bytes as value, original headers plus DLQ_HEADERS. */
export function deadLetterMessage(input: DeadLetterInput): Message {
  const { message } = input;
  const error = input.error instanceof Error ? input.error.message : String(input.error);
  const headers: IHeaders = {
    ...message.headers,
    [DLQ_HEADERS.error]: error.slice(0, MAX_ERROR_LENGTH),
    [DLQ_HEADERS.originalTopic]: input.topic,
    [DLQ_HEADERS.originalPartition]: String(input.partition),
    [DLQ_HEADERS.originalOffset]: message.offset,
    [DLQ_HEADERS.consumerGroup]: input.groupId,
    [DLQ_HEADERS.consumer]: input.consumerName,
  };
  return { key: message.key, value: message.value, headers };
}

/** Kafka's final refusals of a record or batch for its size: sending the same bytes again can never pass. */
const TOO_LARGE = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/** The size refusal in an error or its causes (kafkajs wraps the broker's error), or undefined. */
export function tooLargeRefusal(err: unknown): Error | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (TOO_LARGE.has(String((e as { type?: unknown }).type))) return e;
  }
  return undefined;
}

export interface RelayDeadLetterInput {
  /** The record as the relay sent it (key, value, headers). */
  message: Message;
  topic: string;
  error: unknown;
  /** The relay's name, `<schema>-outbox-relay`. */
  relay: string;
}

/** The DLQ record of an outbox record Kafka refused: same key, value and headers, plus the reason; `omitValue` keeps the headers only. */
export function relayDeadLetterMessage(input: RelayDeadLetterInput, omitValue = false): Message {
  const { message } = input;
  const error = input.error instanceof Error ? input.error.message : String(input.error);
  const size = message.value ? Buffer.byteLength(message.value as Buffer | string) : 0;
  const headers: IHeaders = {
    ...message.headers,
    [DLQ_HEADERS.error]: error.slice(0, MAX_ERROR_LENGTH),
    [DLQ_HEADERS.originalTopic]: input.topic,
    [DLQ_HEADERS.relay]: input.relay,
    [DLQ_HEADERS.originalSize]: String(size),
    ...(omitValue ? { [DLQ_HEADERS.valueOmitted]: 'true' } : {}),
  };
  return { key: message.key, value: omitValue ? null : message.value, headers };
}

/**
 * Produces undecodable messages to their topic's DLQ with acks=all (idempotent, one
 * request in flight). A failed send throws; the caller retries it and does not let
 * the offset move on until it succeeded.
 */
export class DeadLetterPublisher {
  private producer: Producer | undefined;

  constructor(private readonly kafka: Kafka) {}

  async publish(input: DeadLetterInput): Promise<string> {
    const topic = dlqTopicFor(input.topic);
    const producer = await this.getProducer();
    try {
      await producer.send({ topic, messages: [deadLetterMessage(input)], acks: -1 });
    } catch (err) {
      // Start the next attempt from a fresh producer (no state left from a half-done request).
      await this.close();
      throw err;
    }
    return topic;
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer) await producer.disconnect().catch(() => undefined);
  }

  private async getProducer(): Promise<Producer> {
    // Bounded: the consumer's own backoff loop retries (and heartbeats) between attempts.
    return (this.producer ??= await connectIdempotentProducer(this.kafka, { retries: 2, initialRetryTime: 200, maxRetryTime: 1000 }));
  }
}
