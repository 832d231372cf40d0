import type { KafkaMessage } from 'kafkajs';
import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { deadLetterMessage, DLQ_HEADERS, dlqTopicFor, relayDeadLetterMessage, tooLargeRefusal } from './dead-letter';

const message: KafkaMessage = {
  key: Buffer.from('project:1'),
  value: Buffer.from([0xde, 0xad, 0xbe, 0xef]),
  timestamp: '1700000000000',
  attributes: 0,
  offset: '41',
  headers: { trace: 'abc', event_type: Buffer.from('x.Y') },
};

describe('dead-letter messages', () => {
  it('names the DLQ topic after the topic', () => {
    expect(dlqTopicFor('gitlab.projects.events')).toBe('gitlab.projects.events.dlq');
  });

  it('keeps key, bytes and headers, and adds where it came from and why', () => {
    const m = deadLetterMessage({ topic: 't', partition: 2, message, error: new Error('bad bytes'), groupId: 'g', consumerName: 'c' });
    expect(m.key).toBe(message.key);
    expect(m.value).toBe(message.value);
    expect(m.headers).toEqual({
      trace: 'abc',
      event_type: Buffer.from('x.Y'),
      [DLQ_HEADERS.error]: 'bad bytes',
      [DLQ_HEADERS.originalTopic]: 't',
      [DLQ_HEADERS.originalPartition]: '2',
      [DLQ_HEADERS.originalOffset]: '41',
      [DLQ_HEADERS.consumerGroup]: 'g',
      [DLQ_HEADERS.consumer]: 'c',
    });
  });

  it('bounds a long error text', () => {
    const m = deadLetterMessage({ topic: 't', partition: 0, message, error: 'x'.repeat(10000), groupId: 'g', consumerName: 'c' });
    expect(String(m.headers?.[DLQ_HEADERS.error])).toHaveLength(2000);
  });
});

describe('refusals for size (relay)', () => {
  const protocolError = (type: string, retriable = false) =>
    new KafkaJSProtocolError({ type, code: 10, retriable, message: `${type} refused` } as unknown as Error);

  it('finds MESSAGE_TOO_LARGE or RECORD_LIST_TOO_LARGE in an error or its causes, and nothing else', () => {
    const tooLarge = protocolError('MESSAGE_TOO_LARGE');
    expect(tooLargeRefusal(tooLarge)).toBe(tooLarge);
    const wrapped = new Error('produce failed', { cause: Object.assign(new KafkaJSNonRetriableError(tooLarge), { cause: tooLarge }) });
    expect(tooLargeRefusal(wrapped)).toBe(tooLarge);
    expect(tooLargeRefusal(protocolError('RECORD_LIST_TOO_LARGE'))).toBeDefined();
    expect(tooLargeRefusal(protocolError('INVALID_TIMESTAMP'))).toBeUndefined();
    expect(tooLargeRefusal(protocolError('NOT_ENOUGH_REPLICAS', true))).toBeUndefined();
    expect(tooLargeRefusal(new Error('Connection error'))).toBeUndefined();
    expect(tooLargeRefusal(undefined)).toBeUndefined();
  });

  it('builds the DLQ record of a refused row: same key, value and headers, plus the reason; headers only when asked', () => {
    const row = { key: 'project:2', value: Buffer.alloc(300, 1), headers: { event_id: 'e-1', event_type: 't' } };
    const input = { message: row, topic: 'gitlab.projects.events', error: protocolError('MESSAGE_TOO_LARGE'), relay: 'projects-outbox-relay' };
    const full = relayDeadLetterMessage(input);
    expect(full).toMatchObject({ key: 'project:2', value: row.value });
    expect(full.headers).toEqual({
      event_id: 'e-1', event_type: 't', [DLQ_HEADERS.error]: 'MESSAGE_TOO_LARGE refused', [DLQ_HEADERS.originalTopic]: 'gitlab.projects.events',
      [DLQ_HEADERS.relay]: 'projects-outbox-relay', [DLQ_HEADERS.originalSize]: '300',
    });
    const bare = relayDeadLetterMessage(input, true);
    expect(bare.value).toBeNull();
    expect(bare.headers).toMatchObject({ [DLQ_HEADERS.valueOmitted]: 'true', [DLQ_HEADERS.originalSize]: '300' });
  });
});
