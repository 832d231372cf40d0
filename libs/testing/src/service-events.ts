import { createKafka, decodeEnvelope, ensureTopics, topicFor, type Aggregate } from '@glp/events';
import type { eventsV1 } from '@glp/proto';
import { createLogger } from '@glp/service-kit';
import { infraFromEnv } from './infra';
import type { RunningStack } from './stack';

/** The events a service of a stack published, collected as they arrive. */
export interface ServiceEvents {
  /** Every envelope read so far, from the topic's beginning, in arrival order. */
  readonly seen: eventsV1.EventEnvelope[];
  stop(): Promise<void>;
}

/** Reads the topic of `aggregate` in `stack` from its beginning, as the consumer group `<prefix><reader>`. */
export async function readServiceEvents(stack: RunningStack, aggregate: Aggregate, reader: string): Promise<ServiceEvents> {
  const kafka = createKafka({ brokers: infraFromEnv().kafkaBrokers, clientId: reader, logger: createLogger(reader, 'warn') });
  const topic = topicFor(aggregate, stack.topicPrefix);
  const seen: eventsV1.EventEnvelope[] = [];
  const consumer = kafka.consumer({ groupId: `${stack.topicPrefix}${reader}` });
  await consumer.connect();
  // The service's relay creates its topic when it first publishes; subscribing before that can meet a topic whose
  // partition has no leader yet (UNKNOWN_TOPIC_OR_PARTITION). Create it (or find it) first, leaders elected.
  await ensureTopics(kafka, [topic]);
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void (message.value && seen.push(decodeEnvelope(message.value))) });
  return { seen, stop: () => consumer.disconnect() };
}
