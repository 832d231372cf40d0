-- Up Migration
-- One row per pending request. `approving` is the durable intent of an approval in progress: the membership is being
-- created in the owning service; the row goes once that is done (at once, or by the completion loop after a crash).
CREATE TABLE access_requests (
  source_kind     text        NOT NULL CHECK (source_kind IN ('group', 'project')),
  source_id       bigint      NOT NULL,
  user_id         bigint      NOT NULL,
  username        text        NOT NULL,
  name            text        NOT NULL,
  user_state      text        NOT NULL,
  avatar_url      text        NOT NULL DEFAULT '',
  state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approving')),
  approved_level  integer,
  approved_by_id  bigint,
  requested_at    timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_kind, source_id, user_id)
);
-- The completion loop's scan.
CREATE INDEX access_requests_approving_idx ON access_requests (updated_at) WHERE state = 'approving';

-- Down Migration
DROP TABLE access_requests;
