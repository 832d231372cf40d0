-- The webhook-dispatcher's durable queue (GitLab's WebHookWorker + web_hook_logs + the hook's auto-disable state).

-- A payload built once per domain event (push, tag push) or test, shared by its deliveries and logs.
CREATE TABLE webhook_events (
  event_id uuid PRIMARY KEY,
  project_id bigint NOT NULL,
  -- GitLab's hook name: push_hooks, tag_push_hooks, ...
  trigger text NOT NULL,
  payload jsonb NOT NULL,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_created_at ON webhook_events (created_at);

-- One row per (event, hook): what still has to reach a receiver.
CREATE TABLE deliveries (
  id bigserial PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES webhook_events (event_id) ON DELETE CASCADE,
  hook_id bigint NOT NULL,
  project_id bigint NOT NULL,
  -- The Idempotency-Key / webhook-id header: the same for every attempt and resend.
  idempotency_key uuid NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'dropped')),
  attempts integer NOT NULL DEFAULT 0,
  -- pending: when it is due; delivering: when its lease ends (then another worker may take it).
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  -- Who holds the lease: a worker records its attempt only while it still holds it.
  claim_token uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, hook_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'delivering');
CREATE INDEX deliveries_hook_open ON deliveries (hook_id) WHERE status IN ('pending', 'delivering');
CREATE INDEX deliveries_finished ON deliveries (updated_at) WHERE status IN ('succeeded', 'failed', 'dropped');

-- GitLab's web_hook_logs: one row per request sent (id = hook_log_id of the API).
CREATE TABLE web_hook_logs (
  id bigserial PRIMARY KEY,
  hook_id bigint NOT NULL,
  delivery_id bigint,
  event_id uuid NOT NULL,
  -- The hook's URL as saved (placeholders kept), as GitLab shows it.
  url text NOT NULL,
  trigger text NOT NULL,
  request_headers jsonb NOT NULL,
  -- Only when the body differs from the event's payload (a custom template); else the event's payload is shown.
  request_data jsonb,
  response_headers jsonb NOT NULL DEFAULT '{}',
  response_body text NOT NULL DEFAULT '',
  -- "200", "500", ... or "internal error" (no answer).
  response_status text NOT NULL,
  internal_error_message text,
  execution_duration double precision NOT NULL,
  idempotency_key uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX web_hook_logs_hook_recent ON web_hook_logs (hook_id, created_at DESC);
CREATE INDEX web_hook_logs_created_at ON web_hook_logs (created_at);
CREATE INDEX web_hook_logs_event ON web_hook_logs (event_id);

-- GitLab's auto-disable state of a hook (recent_failures, disabled_until), owned here and reported by HookHealthChanged.
CREATE TABLE hook_health (
  hook_id bigint PRIMARY KEY,
  project_id bigint NOT NULL,
  recent_failures integer NOT NULL DEFAULT 0,
  disabled_until timestamptz,
  permanently_disabled boolean NOT NULL DEFAULT false,
  last_failure_at timestamptz,
  version bigint NOT NULL DEFAULT 0
);
