import { Kafka, logLevel, type LogEntry, type logCreator, type Producer } from 'kafkajs';
// Before any client exists: stops kafkajs 2.2.4's idle 1 ms timer loop per broker connection (see the module).
import './kafkajs-idle-loop-fix';
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

/** How the relay and the consumer create topics they need (their DLQ topics included). */
export interface TopicSettings {
  /** Partitions of a created topic (default -1: the broker's num.partitions). */
  numPartitions?: number;
  /** Replicas of a created topic (default -1: the broker's default.replication.factor). */
  replicationFactor?: number;
  /** min.insync.replicas of a created topic (default: the broker's). With acks=all, a write needs this many in-sync replicas. */
  minInsyncReplicas?: number;
}

function positiveInt(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new Error(`${name} must be an integer >= 1 (got ${value})`);
}

/**
 * Creates missing topics and waits for their leaders (avoids LEADER_NOT_AVAILABLE on the
 * first produce to an auto-created topic). Existing topics are left as they are: their
 * partitions, replication and configuration are not changed.
 */
export async function ensureTopics(kafka: Kafka, topics: string[], opts: TopicSettings = {}): Promise<void> {
  positiveInt('replicationFactor', opts.replicationFactor);
  positiveInt('minInsyncReplicas', opts.minInsyncReplicas);
  const unique = [...new Set(topics)];
  if (!unique.length) return;
  const admin = kafka.admin();
  await admin.connect();
  try {
    // Only the missing ones: CreateTopics for an existing topic is answered with an error kafkajs logs.
    const existing = new Set(await admin.listTopics());
    const missing = unique.filter((t) => !existing.has(t));
    if (!missing.length) return;
    const configEntries =
      opts.minInsyncReplicas === undefined ? undefined : [{ name: 'min.insync.replicas', value: String(opts.minInsyncReplicas) }];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({
        topic,
        numPartitions: opts.numPartitions ?? -1,
        replicationFactor: opts.replicationFactor ?? -1,
        configEntries,
      })),
    });
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * An idempotent producer with one request in flight (per-partition order survives retries), connected; a failed
 * connect leaves nothing behind. `retry` bounds kafkajs' own retries: callers run their own backoff loops.
 */
export async function connectIdempotentProducer(kafka: Kafka, retry: { retries: number; initialRetryTime: number; maxRetryTime: number }): Promise<Producer> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, retry });
  try {
    await producer.connect();
  } catch (err) {
    await producer.disconnect().catch(() => undefined);
    throw err;
  }
  return producer;
}
