-- Up Migration

-- Published rows stay for a retention window (the relay marks them instead of deleting them), so that a backup holds
-- every event some consumer may not have applied yet; a restore marks them unpublished again and consumers' dedupe
-- (processed_events, restored in the same snapshot) skips those already applied. Additive: the previous release's relay
-- still deletes what it publishes.
ALTER TABLE outbox ADD COLUMN published_at timestamptz;

-- The relay's query: unpublished rows in id order.
CREATE INDEX outbox_unpublished_id ON outbox (id) WHERE published_at IS NULL;
-- The retention purge: published rows by age, oldest first.
CREATE INDEX outbox_published_at ON outbox (published_at) WHERE published_at IS NOT NULL;

-- Down Migration

DROP INDEX outbox_published_at;
DROP INDEX outbox_unpublished_id;
ALTER TABLE outbox DROP COLUMN published_at;
