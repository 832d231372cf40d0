-- Up Migration
-- Groups are namespaces of kind 'group', nested through parent_id. traversal_ids is the path of ids from the root
-- down to the namespace itself (GitLab's own design): ancestors are `id = ANY(traversal_ids)`, descendants
-- `traversal_ids @> ARRAY[id]`, each one indexed query. full_path and full_name are kept for every namespace.
ALTER TABLE namespaces
  ADD COLUMN description            text    NOT NULL DEFAULT '',
  ADD COLUMN visibility             text    NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'internal', 'public')),
  ADD COLUMN request_access_enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN full_path              text,
  ADD COLUMN full_name              text,
  ADD COLUMN traversal_ids          bigint[] NOT NULL DEFAULT '{}';
UPDATE namespaces SET full_path = path, full_name = name, traversal_ids = ARRAY[id];
ALTER TABLE namespaces ALTER COLUMN full_path SET NOT NULL, ALTER COLUMN full_name SET NOT NULL;
CREATE UNIQUE INDEX namespaces_full_path_lower_key ON namespaces (lower(full_path));
CREATE INDEX namespaces_traversal_ids_idx ON namespaces USING gin (traversal_ids);
CREATE INDEX namespaces_parent_idx ON namespaces (parent_id);
CREATE INDEX namespaces_group_name_idx ON namespaces (lower(name), id) WHERE kind = 'group';

CREATE TABLE group_members (
  group_id      bigint      NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  access_level  integer     NOT NULL CHECK (access_level IN (5, 10, 20, 30, 40, 50)),
  expires_at    date,
  created_by_id bigint,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
-- A user's memberships (access computation: user_id + group_id = ANY(traversal_ids)).
CREATE INDEX group_members_user_idx ON group_members (user_id, group_id);

-- Down Migration
DROP TABLE group_members;
DROP INDEX namespaces_group_name_idx;
DROP INDEX namespaces_parent_idx;
DROP INDEX namespaces_traversal_ids_idx;
DROP INDEX namespaces_full_path_lower_key;
ALTER TABLE namespaces
  DROP COLUMN traversal_ids, DROP COLUMN full_name, DROP COLUMN full_path,
  DROP COLUMN request_access_enabled, DROP COLUMN visibility, DROP COLUMN description;
