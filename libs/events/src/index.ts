// Domain events: transactional outbox (appendEvent), its Kafka relay (OutboxRelay) and
// the idempotent consumer (EventConsumer). Services run eventsMigrationSet() into their schema.
export * from './consumer';
export * from './envelope';
export * from './kafka';
export * from './migrations';
export * from './outbox';
export * from './relay';
export * from './topics';
