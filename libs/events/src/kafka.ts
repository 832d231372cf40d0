import { Kafka, logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { Logger } from '@glp/service-kit';

export { Kafka } from 'kafkajs';

/** Routes kafkajs logs to pino: kafkajs ERROR → warn (the relay/consumer log the failures that matter), WARN/INFO → debug. */
export function pinoLogCreator(logger: Logger): logCreator {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ level, namespace, log: entry }: LogEntry) => {
      const { message, timestamp: _ts, logger: _l, ...extra } = entry;
      const fields = { namespace, ...extra };
      if (level === logLevel.ERROR) log.warn(fields, message);
      else log.debug(fields, message);
    };
}

export interface CreateKafkaOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** kafkajs log level (default ERROR: a down broker is reported by the relay itself). */
  level?: logLevel;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/** A kafkajs client with bounded timeouts and logs routed to pino. */
export function createKafka(opts: CreateKafkaOptions): Kafka {
  return new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    logLevel: opts.level ?? logLevel.ERROR,
    logCreator: pinoLogCreator(opts.logger),
    connectionTimeout: opts.connectionTimeoutMs ?? 3000,
    requestTimeout: opts.requestTimeoutMs ?? 10000,
    retry: { initialRetryTime: 300, retries: 5, maxRetryTime: 5000 },
  });
}

/** Either a kafkajs instance or brokers to build one from. */
export interface KafkaSource {
  kafka?: Kafka;
  brokers?: string[];
}

export function kafkaFrom(src: KafkaSource, clientId: string, logger: Logger): Kafka {
  if (src.kafka) return src.kafka;
  if (!src.brokers?.length) throw new Error('either kafka or brokers is required');
  return createKafka({ brokers: src.brokers, clientId, logger });
}

/**
 * Creates missing topics and waits for their leaders (avoids LEADER_NOT_AVAILABLE on the
 * first produce to an auto-created topic). numPartitions -1 = the broker's num.partitions.
 */
export async function ensureTopics(kafka: Kafka, topics: string[], opts: { numPartitions?: number } = {}): Promise<void> {
  const unique = [...new Set(topics)];
  if (!unique.length) return;
  const admin = kafka.admin();
  await admin.connect();
  try {
    // Only the missing ones: CreateTopics for an existing topic is answered with an error kafkajs logs.
    const existing = new Set(await admin.listTopics());
    const missing = unique.filter((t) => !existing.has(t));
    if (!missing.length) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({ topic, numPartitions: opts.numPartitions ?? -1 })),
    });
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
