-- Up Migration
-- From the listing plans at 100,000 projects (test/integration/listing-plans.test.ts):
-- archived=true selects few projects: a partial index in the default (id) order instead of walking every project.
CREATE INDEX projects_archived_id_idx ON projects (id) WHERE archived AND NOT pending_delete;
-- with_issues_enabled / with_merge_requests_enabled match most projects and are written as "level not in the others"
-- (store/projects-store.ts): the page follows its ordering index, the count reads up to its cap; these indexes only
-- tempted the planner into bitmaps over most of the table (125-160 ms per count).
DROP INDEX projects_issues_access_id_idx;
DROP INDEX projects_merge_requests_access_id_idx;

-- Down Migration
CREATE INDEX projects_merge_requests_access_id_idx ON projects ((COALESCE(settings ->> 'mergeRequestsAccessLevel', 'enabled')), id)
  WHERE NOT pending_delete;
CREATE INDEX projects_issues_access_id_idx ON projects ((COALESCE(settings ->> 'issuesAccessLevel', 'enabled')), id)
  WHERE NOT pending_delete;
DROP INDEX projects_archived_id_idx;
