-- Up Migration

-- The consumers' retention deletes idempotence records by age, oldest first, in batches.
CREATE INDEX processed_events_processed_at ON processed_events (processed_at);

-- Down Migration

DROP INDEX processed_events_processed_at;
