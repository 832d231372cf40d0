-- Up Migration
-- Pull mirrors (GitLab's project import_state for mirrors): whether a project is mirrored, when its next update is
-- due, and how the last one went (shown by GET /projects/:id/mirror/pull). The configuration itself (URL, flags) is
-- projects' (GetImportSource). At most one queued or running mirror update per project.
CREATE TABLE pull_mirrors (
  project_id                bigint      PRIMARY KEY,
  enabled                   boolean     NOT NULL DEFAULT true,
  update_status             text        NOT NULL DEFAULT 'none',
  next_update_at            timestamptz NOT NULL DEFAULT now(),
  last_update_started_at    timestamptz,
  last_update_at            timestamptz,
  last_successful_update_at timestamptz,
  last_error                text,
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now()
);
-- The scheduler's due mirrors.
CREATE INDEX pull_mirrors_due_idx ON pull_mirrors (next_update_at) WHERE enabled;
CREATE UNIQUE INDEX repository_jobs_one_mirror ON repository_jobs (project_id) WHERE kind = 'mirror';

-- Down Migration
DROP INDEX IF EXISTS repository_jobs_one_mirror;
DROP TABLE pull_mirrors;
