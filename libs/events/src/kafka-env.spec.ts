import { z } from 'zod';
import { ConfigError, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv } from './kafka-env';

const schema = z.object({ ...kafkaTopicEnv });

describe('kafkaTopicEnv', () => {
  it('defaults to one replica and min.insync.replicas 1', () => {
    expect(loadConfig(schema, {})).toEqual({ KAFKA_REPLICATION_FACTOR: 1, KAFKA_MIN_INSYNC_REPLICAS: 1 });
  });

  it('reads the production values', () => {
    expect(loadConfig(schema, { KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' })).toEqual({
      KAFKA_REPLICATION_FACTOR: 3,
      KAFKA_MIN_INSYNC_REPLICAS: 2,
    });
  });

  it('names a value below 1 or not an integer', () => {
    expect(() => loadConfig(schema, { KAFKA_REPLICATION_FACTOR: '0' })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { KAFKA_REPLICATION_FACTOR: '0' })).toThrow(/KAFKA_REPLICATION_FACTOR/);
    expect(() => loadConfig(schema, { KAFKA_MIN_INSYNC_REPLICAS: '1.5' })).toThrow(/KAFKA_MIN_INSYNC_REPLICAS/);
  });
});
