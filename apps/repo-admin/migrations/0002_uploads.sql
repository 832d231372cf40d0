-- Up Migration
-- Files uploaded to projects (GitLab's `uploads` table): markdown attachments (FileUploader, POST /projects/:id/uploads)
-- and project avatars (AvatarUploader). The bytes live on this replica's storage under `@uploads/` (uploads: the
-- project's hashed path + `<secret>/<file name>`; avatars: `-/system/project/avatar/<project id>/<secret>/<file name>`);
-- a row exists once its file is in place. A project's rows and files go when the project is removed (its `remove` job).
CREATE TABLE uploads (
  id           bigserial   PRIMARY KEY,
  project_id   bigint      NOT NULL,
  uploader     text        NOT NULL CHECK (uploader IN ('FileUploader', 'AvatarUploader')),
  -- 32 hex digits (SecureRandom.hex), part of the file's URL and path.
  secret       text        NOT NULL CHECK (secret ~ '^[0-9a-f]{32}$'),
  -- The sanitized file name (CarrierWave::SanitizedFile): never a path.
  filename     text        NOT NULL CHECK (filename <> '' AND filename NOT IN ('.', '..') AND strpos(filename, '/') = 0),
  size         bigint      NOT NULL CHECK (size >= 0),
  content_type text        NOT NULL DEFAULT 'application/octet-stream',
  -- The user who uploaded it (identity's user id); null once unknown.
  uploaded_by  bigint,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, secret, filename)
);
-- A project's uploads newest first (GET /projects/:id/uploads), and its avatars.
CREATE INDEX uploads_project_idx ON uploads (project_id, uploader, created_at DESC, id DESC);

-- Down Migration
DROP TABLE uploads;
