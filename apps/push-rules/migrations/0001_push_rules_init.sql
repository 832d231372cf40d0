-- Up Migration
-- Project push rules (GitLab EE `push_rules` rows of a project, `ee/app/models/push_rule.rb`): at most one per project.
-- Regex columns hold RE2 patterns as saved ('' = not set); max_file_size is in MiB (0 = no limit).
CREATE TABLE push_rules (
  id                            bigserial   PRIMARY KEY,
  project_id                    bigint      NOT NULL UNIQUE,
  commit_message_regex          text        NOT NULL DEFAULT '',
  commit_message_negative_regex text        NOT NULL DEFAULT '',
  branch_name_regex             text        NOT NULL DEFAULT '',
  author_email_regex            text        NOT NULL DEFAULT '',
  file_name_regex               text        NOT NULL DEFAULT '',
  deny_delete_tag               boolean     NOT NULL DEFAULT false,
  member_check                  boolean     NOT NULL DEFAULT false,
  prevent_secrets               boolean     NOT NULL DEFAULT false,
  max_file_size                 integer     NOT NULL DEFAULT 0 CHECK (max_file_size >= 0),
  commit_committer_check        boolean     NOT NULL DEFAULT false,
  commit_committer_name_check   boolean     NOT NULL DEFAULT false,
  reject_unsigned_commits       boolean     NOT NULL DEFAULT false,
  reject_non_dco_commits        boolean     NOT NULL DEFAULT false,
  created_at                    timestamptz NOT NULL DEFAULT now(),
  updated_at                    timestamptz NOT NULL DEFAULT now()
);
