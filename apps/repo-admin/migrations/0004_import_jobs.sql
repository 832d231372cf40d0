-- Up Migration
-- Job kinds are the code's (src/domain/job-rules.ts JobKind): imports from a URL (and, later, mirror updates) join
-- create, fork and remove, and other migrations add theirs; one CHECK listing them all would be rewritten by each.
ALTER TABLE repository_jobs DROP CONSTRAINT IF EXISTS repository_jobs_kind_check;

-- Down Migration
SELECT 1;
