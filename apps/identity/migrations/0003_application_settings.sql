-- Up Migration
-- GitLab's application settings: one row (id 1, as GitLab's `default_value_for :id, 1`). Only the settings this
-- platform honours are columns; the gateway presents the rest of GitLab's entity with GitLab's defaults. The row is
-- created on identity's first start from ALLOW_LOCAL_WEBHOOKS / OUTBOUND_ALLOWLIST (GitLab's `create_from_defaults`);
-- later changes go through PUT /application/settings and win over the environment.
CREATE TABLE application_settings (
  id                                               smallint    PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  allow_local_requests_from_web_hooks_and_services boolean     NOT NULL DEFAULT false,
  allow_local_requests_from_system_hooks           boolean     NOT NULL DEFAULT true,
  outbound_local_requests_allowlist                text[]      NOT NULL DEFAULT '{}',
  deny_all_requests_except_allowed                 boolean     NOT NULL DEFAULT false,
  created_at                                       timestamptz NOT NULL DEFAULT now(),
  updated_at                                       timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE application_settings;
