// Helpers of the relay fencing tests: fill an outbox with numbered events over many keys,
// read a whole topic back, and check what the relay delivered (complete, per-key order, duplicates).
import { projectEventsV1 } from '@glp/proto';
import type { Kafka, Producer, ProducerBatch, RecordMetadata } from 'kafkajs';
import type { Pool } from 'pg';
import { buildEnvelope, decodeEnvelope, encodeEnvelope, EventTypes, unpackPayload } from '../../src';

/** Writes events seq from..to to the outbox, in seq order, key "project:<seq % keys>"; payload projectId = seq. */
export async function fillOutbox(pool: Pool, topic: string, from: number, to: number, keys: number): Promise<void> {
  const rows = Array.from({ length: to - from + 1 }, (_, i) => {
    const seq = from + i;
    const envelope = buildEnvelope({
      aggregateType: 'project',
      aggregateKey: `project:${seq % keys}`,
      payloadType: EventTypes.ProjectCreated,
      payload: projectEventsV1.ProjectCreated.fromPartial({ projectId: seq, name: `event ${seq}` }),
    });
    return { envelope, bytes: encodeEnvelope(envelope) };
  });
  await pool.query(
    `INSERT INTO outbox (topic, message_key, event_id, event_type, payload)
     SELECT $1, k, e, t, p FROM unnest($2::text[], $3::uuid[], $4::text[], $5::bytea[]) WITH ORDINALITY AS u(k, e, t, p, ord)
     ORDER BY ord`,
    [
      topic,
      rows.map((r) => r.envelope.aggregateKey),
      rows.map((r) => r.envelope.eventId),
      rows.map((r) => r.envelope.eventType),
      rows.map((r) => r.bytes),
    ],
  );
}

export interface Delivered {
  key: string;
  seq: number;
  partition: number;
}

/** Every message of `topic` up to its current end, in partition order, decoded. */
export async function readTopic(kafka: Kafka, topic: string, groupId: string): Promise<Delivered[]> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  await admin.disconnect();
  const total = [...ends.values()].reduce((a, b) => a + b, 0);
  const out: Delivered[] = [];
  if (!total) return out;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (Number(message.offset) >= (ends.get(partition) ?? 0)) return;
        const envelope = decodeEnvelope(message.value!);
        out.push({ key: message.key!.toString(), seq: unpackPayload(envelope, EventTypes.ProjectCreated).projectId, partition });
        if (out.length === total) done();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      finished,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`read ${out.length} of ${total} messages`)), 30000))),
    ]);
    clearTimeout(timer);
  } finally {
    await consumer.disconnect();
  }
  return out;
}

export interface DeliveryReport {
  /** Seqs of 1..n never delivered. */
  missing: number[];
  /** Keys whose first occurrences are not in seq order. */
  outOfOrderKeys: string[];
  /** Seqs delivered more than once, ascending. */
  duplicates: number[];
}

export function analyse(delivered: Delivered[], n: number): DeliveryReport {
  const seen = new Map<number, number>();
  const lastFirstByKey = new Map<string, number>();
  const outOfOrder = new Set<string>();
  for (const d of delivered) {
    const times = seen.get(d.seq) ?? 0;
    seen.set(d.seq, times + 1);
    if (times > 0) continue;
    if ((lastFirstByKey.get(d.key) ?? 0) > d.seq) outOfOrder.add(d.key);
    lastFirstByKey.set(d.key, d.seq);
  }
  const missing: number[] = [];
  for (let seq = 1; seq <= n; seq++) if (!seen.has(seq)) missing.push(seq);
  const duplicates = [...seen].filter(([, times]) => times > 1).map(([seq]) => seq).sort((a, b) => a - b);
  return { missing, outOfOrderKeys: [...outOfOrder], duplicates };
}

/** True when the (ascending) seqs form one range without gaps. */
export function contiguous(seqs: number[]): boolean {
  return seqs.length === 0 || seqs[seqs.length - 1] - seqs[0] + 1 === seqs.length;
}

/** A Kafka client whose producers call `afterSend(n)` after their n-th acknowledged sendBatch (n counts across producers). */
export function withAfterSend(kafka: Kafka, afterSend: (n: number) => Promise<void>): Kafka {
  let sends = 0;
  const wrapped = Object.create(kafka) as Kafka;
  wrapped.producer = (config) => {
    const producer = kafka.producer(config);
    const hooked: Producer = {
      ...producer,
      sendBatch: async (batch: ProducerBatch): Promise<RecordMetadata[]> => {
        const result = await producer.sendBatch(batch);
        await afterSend(++sends);
        return result;
      },
    };
    return hooked;
  };
  return wrapped;
}
