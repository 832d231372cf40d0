-- Up Migration
-- GitLab 18's delayed group deletion (its group_deletion_schedules, one per group, kept here on the group's row): the
-- day the group itself was marked and who marked it. The group is removed once deletion_adjourned_period has passed.
ALTER TABLE namespaces
  ADD COLUMN marked_for_deletion_on date,
  ADD COLUMN deleting_user_id bigint;
-- The removal worker's scan of due groups (few rows: only marked groups are in the index).
CREATE INDEX namespaces_marked_for_deletion_idx ON namespaces (marked_for_deletion_on, id) WHERE marked_for_deletion_on IS NOT NULL;

-- Down Migration
DROP INDEX namespaces_marked_for_deletion_idx;
ALTER TABLE namespaces DROP COLUMN deleting_user_id, DROP COLUMN marked_for_deletion_on;
