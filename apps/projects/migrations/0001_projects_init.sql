-- Up Migration
-- Read model of identity's namespaces, fed by NamespaceChanged events (and filled on demand
-- through identity's gRPC API when a project is created before the event arrives).
CREATE TABLE namespaces (
  id             bigint PRIMARY KEY,
  name           text        NOT NULL,
  path           text        NOT NULL,
  kind           text        NOT NULL,
  full_path      text        NOT NULL,
  parent_id      bigint,
  owner_id       bigint,
  owner_username text,
  owner_name     text,
  owner_state    text,
  version        bigint      NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX namespaces_full_path_lower_idx ON namespaces (lower(full_path));
CREATE INDEX namespaces_owner_idx ON namespaces (owner_id) WHERE kind = 'user';

CREATE TABLE projects (
  id                 bigserial PRIMARY KEY,
  namespace_id       bigint      NOT NULL REFERENCES namespaces (id),
  name               text        NOT NULL,
  path               text        NOT NULL,
  description        text,
  visibility         text        NOT NULL CHECK (visibility IN ('private', 'internal', 'public')),
  creator_id         bigint      NOT NULL,
  default_branch     text,
  archived           boolean     NOT NULL DEFAULT false,
  star_count         integer     NOT NULL DEFAULT 0,
  forks_count        integer     NOT NULL DEFAULT 0,
  topics             text[]      NOT NULL DEFAULT '{}',
  -- Feature and behaviour settings; absent keys take the defaults in src/domain/project-settings.ts.
  settings           jsonb       NOT NULL DEFAULT '{}',
  import_status      text        NOT NULL DEFAULT 'none',
  repository_storage text        NOT NULL DEFAULT 'default',
  pending_delete     boolean     NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  last_activity_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX projects_namespace_path_key ON projects (namespace_id, lower(path));
CREATE UNIQUE INDEX projects_namespace_name_key ON projects (namespace_id, lower(name));
-- Listings: visibility filter with the default id ordering, and the other orderings (id tie-breaker).
CREATE INDEX projects_visibility_id_idx ON projects (visibility, id) WHERE NOT pending_delete;
CREATE INDEX projects_name_id_idx ON projects (lower(name), id);
CREATE INDEX projects_path_id_idx ON projects (lower(path), id);
CREATE INDEX projects_updated_at_id_idx ON projects (updated_at, id);
CREATE INDEX projects_last_activity_at_id_idx ON projects (last_activity_at, id);
CREATE INDEX projects_star_count_id_idx ON projects (star_count, id);
-- Topic filters are case-insensitive (GitLab matches topic names case-insensitively).
CREATE FUNCTION lower_text_array(text[]) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(lower(t)), '{}') FROM unnest($1) AS t $$;
CREATE INDEX projects_topics_lower_idx ON projects USING gin (lower_text_array(topics));

CREATE TABLE project_members (
  project_id   bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id      bigint      NOT NULL,
  access_level integer     NOT NULL CHECK (access_level IN (5, 10, 15, 20, 30, 40, 50)),
  created_by   bigint,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user_idx ON project_members (user_id, project_id);

-- Down Migration
DROP TABLE project_members;
DROP TABLE projects;
DROP TABLE namespaces;
DROP FUNCTION lower_text_array(text[]);
