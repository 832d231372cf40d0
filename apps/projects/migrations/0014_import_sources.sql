-- Up Migration
-- Where a project's repository is imported (and pull-mirrored) from. The URL may carry credentials: it is stored
-- sealed (AES-256-GCM, src/domain/secret-box.ts), shown masked, handed only to repo-admin (GetImportSource), never
-- published in events. Goes with its project.
CREATE TABLE project_import_sources (
  project_id                          bigint      PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  url_sealed                          bytea       NOT NULL,
  -- The URL with user and password masked, for the API (GitLab's safe_import_url).
  url_masked                          text        NOT NULL,
  import_type                         text        NOT NULL DEFAULT 'git',
  mirror                              boolean     NOT NULL DEFAULT false,
  mirror_trigger_builds               boolean     NOT NULL DEFAULT false,
  only_mirror_protected_branches      boolean     NOT NULL DEFAULT false,
  mirror_overwrites_diverged_branches boolean     NOT NULL DEFAULT false,
  mirror_user_id                      bigint,
  mirror_branch_regex                 text,
  created_at                          timestamptz NOT NULL DEFAULT now(),
  updated_at                          timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE project_import_sources;
