-- Up Migration
-- Delayed deletion (DELETION_DELAY_DAYS > 0): the day a marked project is purged, and who marked it.
ALTER TABLE projects
  ADD COLUMN marked_for_deletion_on date,
  ADD COLUMN deleting_user_id bigint;
-- The purge loop's scan.
CREATE INDEX projects_marked_for_deletion_idx ON projects (marked_for_deletion_on) WHERE marked_for_deletion_on IS NOT NULL;

-- Down Migration
DROP INDEX projects_marked_for_deletion_idx;
ALTER TABLE projects DROP COLUMN deleting_user_id, DROP COLUMN marked_for_deletion_on;
