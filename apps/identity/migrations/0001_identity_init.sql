-- Up Migration
CREATE TABLE users (
  id               bigserial PRIMARY KEY,
  username         text        NOT NULL,
  name             text        NOT NULL,
  email            text        NOT NULL,
  state            text        NOT NULL DEFAULT 'active',
  is_admin         boolean     NOT NULL DEFAULT false,
  bot              boolean     NOT NULL DEFAULT false,
  external         boolean     NOT NULL DEFAULT false,
  private_profile  boolean     NOT NULL DEFAULT false,
  projects_limit   integer     NOT NULL DEFAULT 100000,
  can_create_group boolean     NOT NULL DEFAULT true,
  bio              text        NOT NULL DEFAULT '',
  location         text        NOT NULL DEFAULT '',
  public_email     text        NOT NULL DEFAULT '',
  website_url      text        NOT NULL DEFAULT '',
  organization     text        NOT NULL DEFAULT '',
  job_title        text        NOT NULL DEFAULT '',
  password_hash    text,
  namespace_id     bigint,
  confirmed_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));

CREATE TABLE namespaces (
  id         bigserial PRIMARY KEY,
  name       text        NOT NULL,
  path       text        NOT NULL,
  kind       text        NOT NULL CHECK (kind IN ('user', 'group')),
  parent_id  bigint      REFERENCES namespaces (id),
  owner_id   bigint      REFERENCES users (id),
  version    bigint      NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Top-level paths are unique across users and groups (they share the URL space).
CREATE UNIQUE INDEX namespaces_top_level_path_key ON namespaces (lower(path)) WHERE parent_id IS NULL;
CREATE UNIQUE INDEX namespaces_child_path_key ON namespaces (parent_id, lower(path)) WHERE parent_id IS NOT NULL;
CREATE UNIQUE INDEX namespaces_personal_owner_key ON namespaces (owner_id) WHERE kind = 'user';

ALTER TABLE users ADD CONSTRAINT users_namespace_fk FOREIGN KEY (namespace_id) REFERENCES namespaces (id);

CREATE TABLE personal_access_tokens (
  id           bigserial PRIMARY KEY,
  user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name         text        NOT NULL,
  description  text        NOT NULL DEFAULT '',
  -- SHA-256 of the secret; the secret itself is never stored.
  token_digest bytea       NOT NULL,
  scopes       text[]      NOT NULL,
  expires_at   date,
  revoked      boolean     NOT NULL DEFAULT false,
  last_used_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX personal_access_tokens_digest_key ON personal_access_tokens (token_digest);
CREATE INDEX personal_access_tokens_user_idx ON personal_access_tokens (user_id, id);

-- Down Migration
DROP TABLE personal_access_tokens;
ALTER TABLE users DROP CONSTRAINT users_namespace_fk;
DROP TABLE namespaces;
DROP TABLE users;
