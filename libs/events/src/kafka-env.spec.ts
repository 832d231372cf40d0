import { z } from 'zod';
import { ConfigError, loadConfig } from '@glp/service-kit';
import { kafkaTopicEnv, outboxEnv, outboxRetention, processedEventsEnv, processedEventsRetention } from './kafka-env';

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

describe('processedEventsEnv', () => {
  const retention = z.object({ ...processedEventsEnv });

  it('keeps records 14 days by default (twice Kafka\'s default topic retention), purged hourly', () => {
    expect(processedEventsRetention(loadConfig(retention, {}))).toEqual({ processedEventsRetentionMs: 14 * 86_400_000, processedEventsPurgeIntervalMs: 3_600_000 });
  });

  it('reads 0 as kept forever and names a bad value', () => {
    expect(processedEventsRetention(loadConfig(retention, { PROCESSED_EVENTS_RETENTION_DAYS: '0' })).processedEventsRetentionMs).toBe(0);
    expect(() => loadConfig(retention, { PROCESSED_EVENTS_RETENTION_DAYS: '-1' })).toThrow(/PROCESSED_EVENTS_RETENTION_DAYS/);
    expect(() => loadConfig(retention, { PROCESSED_EVENTS_PURGE_INTERVAL_MS: '10' })).toThrow(/PROCESSED_EVENTS_PURGE_INTERVAL_MS/);
  });
});

describe('outboxEnv', () => {
  const retention = z.object({ ...outboxEnv, ...processedEventsEnv });

  it('keeps published rows 72 hours by default, below the processed_events retention, purged hourly', () => {
    const config = loadConfig(retention, {});
    expect(outboxRetention(config)).toEqual({ retentionMs: 72 * 3_600_000, purgeIntervalMs: 3_600_000 });
    expect(outboxRetention(config).retentionMs).toBeLessThan(processedEventsRetention(config).processedEventsRetentionMs);
  });

  it('reads 0 as deleted once published and names a bad value', () => {
    expect(outboxRetention(loadConfig(retention, { OUTBOX_RETENTION_HOURS: '0' })).retentionMs).toBe(0);
    expect(() => loadConfig(retention, { OUTBOX_RETENTION_HOURS: '-1' })).toThrow(/OUTBOX_RETENTION_HOURS/);
    expect(() => loadConfig(retention, { OUTBOX_PURGE_INTERVAL_MS: '10' })).toThrow(/OUTBOX_PURGE_INTERVAL_MS/);
  });
});
