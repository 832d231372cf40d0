-- Up Migration
-- The topic filter (`topic=`, `topics` of GET /projects) read lower_text_array(topics) on every row it looked at: a SQL
-- function with an aggregate, which PostgreSQL cannot inline and runs through its function executor each time (~3 us
-- a row; a member's `topic=t7` page at 100,000 projects walked ~1,500 rows: 5 ms). The lower-cased topics are now a
-- column computed when the row is written, and the index is on that column.
ALTER TABLE projects ADD COLUMN topics_lower text[] GENERATED ALWAYS AS (lower_text_array(topics)) STORED;
CREATE INDEX projects_topics_lower_col_idx ON projects USING gin (topics_lower);
DROP INDEX projects_topics_lower_idx;

-- Down Migration
CREATE INDEX projects_topics_lower_idx ON projects USING gin (lower_text_array(topics));
DROP INDEX projects_topics_lower_col_idx;
ALTER TABLE projects DROP COLUMN topics_lower;
