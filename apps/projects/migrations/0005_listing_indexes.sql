-- Up Migration
-- Indexes behind the GET /projects filters and orderings that had none.
--
-- Search (GitLab's ILIKE '%term%' on name, path, description; with search_namespaces also the namespace's full path
-- and name) is served by pg_trgm GIN indexes. pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may
-- create it without being superuser (deploy/local/infra.sh makes the app role own the database). It lives in `public`,
-- once per database, shared by every service schema (connections' search_path is only the service's schema, hence the
-- schema-qualified operator class). The advisory lock serialises concurrent first migrations of several schemas.
SELECT pg_advisory_xact_lock(hashtext('glp:create-extension:pg_trgm'));
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

CREATE INDEX projects_name_trgm_idx ON projects USING gin (name public.gin_trgm_ops);
CREATE INDEX projects_path_trgm_idx ON projects USING gin (path public.gin_trgm_ops);
CREATE INDEX projects_description_trgm_idx ON projects USING gin (description public.gin_trgm_ops);
-- A search without a term of 3+ characters is an exact case-insensitive match (name and path have btree indexes on
-- lower(); a description can exceed a btree entry, a hash index has no such limit).
CREATE INDEX projects_description_lower_hash_idx ON projects USING hash (lower(description));
CREATE INDEX namespaces_full_path_trgm_idx ON namespaces USING gin (full_path public.gin_trgm_ops);
CREATE INDEX namespaces_name_trgm_idx ON namespaces USING gin (name public.gin_trgm_ops);
CREATE INDEX namespaces_name_lower_idx ON namespaces (lower(name));
-- Projects of a namespace (user listings, search_namespaces) are found through projects_namespace_path_key.

-- with_issues_enabled / with_merge_requests_enabled: the feature's level (absent key: the default "enabled"),
-- with the id ordering of the default listing.
CREATE INDEX projects_issues_access_id_idx ON projects ((COALESCE(settings ->> 'issuesAccessLevel', 'enabled')), id)
  WHERE NOT pending_delete;
CREATE INDEX projects_merge_requests_access_id_idx ON projects ((COALESCE(settings ->> 'mergeRequestsAccessLevel', 'enabled')), id)
  WHERE NOT pending_delete;
-- repository_storage (administrators).
CREATE INDEX projects_repository_storage_id_idx ON projects (repository_storage, id);
-- last_activity_after / last_activity_before use projects_last_activity_at_id_idx (0001); starred uses stars_user_idx (0003).

-- Down Migration
DROP INDEX projects_repository_storage_id_idx;
DROP INDEX projects_merge_requests_access_id_idx;
DROP INDEX projects_issues_access_id_idx;
DROP INDEX namespaces_name_lower_idx;
DROP INDEX namespaces_name_trgm_idx;
DROP INDEX namespaces_full_path_trgm_idx;
DROP INDEX projects_description_lower_hash_idx;
DROP INDEX projects_description_trgm_idx;
DROP INDEX projects_path_trgm_idx;
DROP INDEX projects_name_trgm_idx;
-- pg_trgm stays: other schemas of the database may use it.
