// Domain events: transactional outbox (appendEvent), its Kafka relay (OutboxRelay) and
// the idempotent consumer (EventConsumer). Services run eventsMigrationSet() into their schema.
export * from './backoff';
export * from './consumer';
export * from './dead-letter';
export * from './envelope';
export * from './kafka';
export * from './kafka-env';
export * from './migrations';
export * from './outbox';
export * from './processed-events-retention';
export * from './relay';
export * from './relay-lock';
export * from './topics';
