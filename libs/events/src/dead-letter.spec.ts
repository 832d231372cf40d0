import type { KafkaMessage } from 'kafkajs';
import { deadLetterMessage, DLQ_HEADERS, dlqTopicFor } from './dead-letter';

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
