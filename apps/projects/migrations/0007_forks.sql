-- Up Migration
-- Fork relations (GitLab's fork_network_members reduced to what the API shows: a project's direct source). A project is
-- the fork of at most one project; deleting either side removes the relation (GitLab nullifies forked_from_project).
CREATE TABLE project_forks (
  project_id             bigint      PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  forked_from_project_id bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  created_at             timestamptz NOT NULL DEFAULT now(),
  CHECK (project_id <> forked_from_project_id)
);
-- A project's direct forks (GET /projects/:id/forks, forks_count).
CREATE INDEX project_forks_source_idx ON project_forks (forked_from_project_id, project_id);

-- forks_count follows the relation rows whatever removes them (unlink, a deleted fork, cascades), in the same
-- transaction as the change.
CREATE FUNCTION project_forks_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE projects SET forks_count = forks_count + 1 WHERE id = NEW.forked_from_project_id;
  ELSE
    UPDATE projects SET forks_count = greatest(forks_count - 1, 0) WHERE id = OLD.forked_from_project_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER project_forks_count AFTER INSERT OR DELETE ON project_forks FOR EACH ROW EXECUTE FUNCTION project_forks_count();

-- The last import (fork copy) failure, shown as import_error.
ALTER TABLE projects ADD COLUMN import_error text;

-- Down Migration
ALTER TABLE projects DROP COLUMN import_error;
DROP TABLE project_forks;
DROP FUNCTION project_forks_count();
