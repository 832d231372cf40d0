-- Up Migration
-- Housekeeping (POST /projects/:id/housekeeping) is a repository job of kind 'housekeeping'. Job kinds are the code's
-- (src/domain/job-rules.ts JobKind; 0004 says the same): the CHECK listing the first three goes.
ALTER TABLE repository_jobs DROP CONSTRAINT IF EXISTS repository_jobs_kind_check;
-- GitLab's housekeeping lease (`Repositories::HousekeepingService`, an ExclusiveLease per project, given back when the
-- worker ends): at most one queued or running housekeeping job per project. A second request conflicts on this index
-- (409 "Somebody already triggered housekeeping ...") in the same statement that would queue it.
CREATE UNIQUE INDEX repository_jobs_one_housekeeping ON repository_jobs (project_id) WHERE kind = 'housekeeping';

-- Down Migration
DROP INDEX IF EXISTS repository_jobs_one_housekeeping;
