-- Up Migration
-- GitLab's deletion_adjourned_period: the days a project marked for deletion waits before it is removed (1..90,
-- GitLab's default 7). A new row takes DELETION_ADJOURNED_PERIOD; PUT /application/settings changes it.
ALTER TABLE application_settings
  ADD COLUMN deletion_adjourned_period integer NOT NULL DEFAULT 7
    CONSTRAINT application_settings_deletion_adjourned_period_range CHECK (deletion_adjourned_period BETWEEN 1 AND 90);

-- Down Migration
ALTER TABLE application_settings DROP COLUMN deletion_adjourned_period;
