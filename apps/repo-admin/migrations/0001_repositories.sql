-- Up Migration
-- The repositories repo-admin keeps on disk (GitLab's project_repositories + the state the API shows). A row exists
-- once the bare repository is on disk; it goes when the repository is removed.
CREATE TABLE repositories (
  project_id     bigint      PRIMARY KEY,
  storage        text        NOT NULL,
  disk_path      text        NOT NULL UNIQUE,
  empty          boolean     NOT NULL DEFAULT true,
  default_branch text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

-- Durable work on repositories, written by the event consumer in the event's transaction and done by the job worker
-- (git can take minutes: never inside a consumer's transaction). A project's jobs run one at a time in id order; a job
-- is claimed for a lease and retried with backoff; done jobs are deleted.
CREATE TABLE repository_jobs (
  id          bigserial   PRIMARY KEY,
  project_id  bigint      NOT NULL,
  kind        text        NOT NULL CHECK (kind IN ('create', 'fork', 'remove')),
  payload     jsonb       NOT NULL DEFAULT '{}',
  attempts    integer     NOT NULL DEFAULT 0,
  run_after   timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  last_error  text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
-- The next job of each project (id order), and the due ones.
CREATE INDEX repository_jobs_project_idx ON repository_jobs (project_id, id);
CREATE INDEX repository_jobs_due_idx ON repository_jobs (run_after, id);

-- Down Migration
DROP TABLE repository_jobs;
DROP TABLE repositories;
