-- Up Migration
-- Projects shared with groups (GitLab's project_group_links): members of the group get min(their level in the group,
-- group_access) in the project until expires_at (exclusive, as memberships). The group is identity's; its name and
-- full path come from the namespaces read model.
CREATE TABLE project_group_links (
  id           bigserial PRIMARY KEY,
  project_id   bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  group_id     bigint      NOT NULL,
  group_access integer     NOT NULL CHECK (group_access IN (5, 10, 15, 20, 30, 40, 50)),
  expires_at   date,
  created_by   bigint,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
-- One link per (project, group); a project's links (its shared_with_groups, the caller's access through them).
CREATE UNIQUE INDEX project_group_links_project_group_key ON project_group_links (project_id, group_id);
-- A group's shared projects (GroupDetail shared_projects), and a deleted group's links.
CREATE INDEX project_group_links_group_project_idx ON project_group_links (group_id, project_id);

-- Down Migration
DROP TABLE project_group_links;
