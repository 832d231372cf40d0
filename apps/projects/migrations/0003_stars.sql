-- Up Migration
-- Who starred which project (GitLab's users_star_projects). projects.star_count is kept in step in the same
-- transaction as every insert and delete here; created_at is the starrer's `starred_since`.
CREATE TABLE stars (
  project_id bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id    bigint      NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
-- A user's stars (the user's starred projects; a deleted user's stars go).
CREATE INDEX stars_user_idx ON stars (user_id, project_id);
-- A project's starrers in the order they starred (GET /projects/:id/starrers).
CREATE INDEX stars_project_created_idx ON stars (project_id, created_at, user_id);

-- Down Migration
DROP TABLE stars;
