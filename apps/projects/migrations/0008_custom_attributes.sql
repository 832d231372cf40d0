-- Up Migration
-- Custom attributes of projects (GitLab's project_custom_attributes): free key/value pairs that administrators set,
-- read and filter listings by (GET/PUT/DELETE /projects/:id/custom_attributes[/:key], `custom_attributes[k]=v`).
-- One value per (project, key): the primary key serves a project's attributes (ordered by key) and the upsert.
CREATE TABLE project_custom_attributes (
  project_id bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  key        text        NOT NULL,
  value      text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, key)
);
-- The listing filter: one EXISTS per pair, `key = $k AND value = $v AND project_id = p.id` (GitLab's
-- index_project_custom_attributes_on_key_and_value), project_id last so the probe is an index-only scan.
CREATE INDEX project_custom_attributes_key_value_idx ON project_custom_attributes (key, value, project_id);

-- Down Migration
DROP TABLE project_custom_attributes;
