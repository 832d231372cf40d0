-- Up Migration
-- Read model of identity's users (the fields a member listing shows), fed by UserCreated events and filled on demand
-- through identity's gRPC API when a member is added (or listed) before the event arrives.
CREATE TABLE users (
  id         bigint PRIMARY KEY,
  username   text        NOT NULL,
  name       text        NOT NULL,
  state      text        NOT NULL,
  avatar_url text        NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_username_lower_idx ON users (lower(username));

ALTER TABLE project_members
  ADD COLUMN expires_at date,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- Down Migration
ALTER TABLE project_members DROP COLUMN updated_at, DROP COLUMN expires_at;
DROP TABLE users;
