-- Up Migration
-- GitLab's redirect routes of projects (app/models/redirect_route.rb, app/models/route.rb): an old full path of a project
-- (its own rename or transfer, or a rename of a namespace above it) leads to the project. A lookup by full path falls
-- back to them when no live project has the path (Routable.find_by_full_path(follow_redirects: true)); the API then
-- answers 301/405 (lib/api/helpers.rb find_project!). One row per project and old path, as GitLab's
-- Route#rename_descendants writes one per descendant route: a project created later in a renamed group is not
-- reachable by the group's old path. A route taking a path deletes the redirects at it and below it
-- (RedirectRoute.matching_path_and_descendants); deleting the project deletes its redirects (dependent: :destroy).
--
-- `path` is COLLATE "C" so that byte order holds: the paths below `p` are exactly lower(path) in ['p/', 'p0'), one range
-- of the unique index, whatever `p` contains (no LIKE escaping, usable with `p` taken from a joined row).
CREATE TABLE project_redirect_routes (
  id         bigserial   PRIMARY KEY,
  path       text        COLLATE "C" NOT NULL,
  project_id bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Unique case-insensitively, as GitLab validates it; the lookup by path and the clearing of a path and what is below it.
CREATE UNIQUE INDEX project_redirect_routes_path_key ON project_redirect_routes (lower(path));
-- The cascade when a project is deleted.
CREATE INDEX project_redirect_routes_project_idx ON project_redirect_routes (project_id);

-- Down Migration
DROP TABLE project_redirect_routes;
