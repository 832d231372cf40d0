-- Up Migration

-- Transactional outbox: rows are inserted in the same transaction as the state change
-- they describe; the relay publishes them to Kafka in id order and deletes them after the ack.
CREATE TABLE outbox (
  id          bigserial PRIMARY KEY,
  topic       text        NOT NULL,
  message_key text        NOT NULL,
  event_id    uuid        NOT NULL UNIQUE,
  event_type  text        NOT NULL,
  -- the protobuf-encoded gitlab.events.v1.EventEnvelope
  payload     bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Idempotent consumers: one row per (consumer, event) handled, written in the handler's transaction.
CREATE TABLE processed_events (
  consumer     text        NOT NULL,
  event_id     uuid        NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

-- Down Migration

DROP TABLE processed_events;
DROP TABLE outbox;
