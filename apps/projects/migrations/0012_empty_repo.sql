-- Up Migration
-- Whether the project's repository has no commit yet, as repo-admin reports it (RepositoryChanged); a new project's
-- repository is empty until repo-admin says otherwise.
ALTER TABLE projects ADD COLUMN empty_repo boolean NOT NULL DEFAULT true;

-- Down Migration
ALTER TABLE projects DROP COLUMN empty_repo;
