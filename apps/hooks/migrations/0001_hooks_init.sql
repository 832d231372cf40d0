-- Up Migration
-- Project hooks (GitLab's web_hooks rows of type ProjectHook). Secrets are sealed with libs/secret-box (AES-256-GCM,
-- HOOKS_SECRETS_KEY): the URL as saved (it may carry credentials), the token, the url variables' and the custom
-- headers' values (each a sealed JSON object; their keys are kept in clear for the API, which shows only keys).
CREATE TABLE hooks (
  id                           bigserial   PRIMARY KEY,
  project_id                   bigint      NOT NULL,
  url_sealed                   bytea       NOT NULL,
  -- The URL as saved with user and password masked: what responses, events and the delivery log may show.
  url_display                  text        NOT NULL,
  token_sealed                 bytea,
  name                         text        NOT NULL DEFAULT '',
  description                  text        NOT NULL DEFAULT '',
  push_events                  boolean     NOT NULL DEFAULT true,
  tag_push_events              boolean     NOT NULL DEFAULT false,
  issues_events                boolean     NOT NULL DEFAULT false,
  confidential_issues_events   boolean     NOT NULL DEFAULT false,
  merge_requests_events        boolean     NOT NULL DEFAULT false,
  note_events                  boolean     NOT NULL DEFAULT false,
  confidential_note_events     boolean,
  job_events                   boolean     NOT NULL DEFAULT false,
  pipeline_events              boolean     NOT NULL DEFAULT false,
  wiki_page_events             boolean     NOT NULL DEFAULT false,
  deployment_events            boolean     NOT NULL DEFAULT false,
  feature_flag_events          boolean     NOT NULL DEFAULT false,
  releases_events              boolean     NOT NULL DEFAULT false,
  milestone_events             boolean     NOT NULL DEFAULT false,
  emoji_events                 boolean     NOT NULL DEFAULT false,
  resource_access_token_events boolean     NOT NULL DEFAULT false,
  resource_deploy_token_events boolean     NOT NULL DEFAULT false,
  vulnerability_events         boolean     NOT NULL DEFAULT false,
  repository_update_events     boolean     NOT NULL DEFAULT false,
  enable_ssl_verification      boolean     NOT NULL DEFAULT true,
  push_events_branch_filter    text,
  branch_filter_strategy       text        NOT NULL DEFAULT 'wildcard' CHECK (branch_filter_strategy IN ('wildcard', 'regex', 'all_branches')),
  custom_webhook_template      text,
  url_variable_keys            text[]      NOT NULL DEFAULT '{}',
  url_variables_sealed         bytea,
  custom_header_keys           text[]      NOT NULL DEFAULT '{}',
  custom_headers_sealed        bytea,
  -- The auto-disable state as the webhook-dispatcher last reported it (HookHealthChanged, applied when newer).
  alert_status                 text        NOT NULL DEFAULT 'executable' CHECK (alert_status IN ('executable', 'temporarily_disabled', 'disabled')),
  disabled_until               timestamptz,
  health_version               bigint      NOT NULL DEFAULT 0,
  created_at                   timestamptz NOT NULL DEFAULT now(),
  updated_at                   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX hooks_project_id_idx ON hooks (project_id, id);
