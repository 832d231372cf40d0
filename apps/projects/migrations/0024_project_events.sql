-- Up Migration
-- A project's activity (GitLab's `events` with `push_event_payloads`), for GET /projects/:id/events: the project was
-- created or imported, a member joined or left, refs were pushed. Written in the transaction of the change it records
-- (creation, membership), or by the consumer of repo-admin's Push/TagPush. Goes with its project.
--
-- No target columns: none of the events this service writes has a target (GitLab's issues, merge requests, notes ...
-- are not part of this system), so a target_type filter matches nothing (domain/project-event-rules.ts).
CREATE TABLE project_events (
  id                bigserial   PRIMARY KEY,
  project_id        bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  author_id         bigint      NOT NULL,
  action            text        NOT NULL CHECK (action IN ('created', 'joined', 'left', 'pushed')),
  -- The push payload (action 'pushed' only). commit_from/commit_to are null for a created/removed ref; a bulk push
  -- (more refs of one kind and action than GitLab's push_event_activities_limit) has ref_count and no ref or commits.
  push_commit_count integer,
  push_action       text        CHECK (push_action IN ('created', 'removed', 'pushed')),
  push_ref_type     text        CHECK (push_ref_type IN ('branch', 'tag')),
  push_commit_from  text        CHECK (char_length(push_commit_from) <= 64),
  push_commit_to    text        CHECK (char_length(push_commit_to) <= 64),
  push_ref          text,
  push_commit_title text        CHECK (char_length(push_commit_title) <= 70),
  push_ref_count    integer,
  -- The one event of a bulk push, written once however many of the push's ref events arrive: the push's time, pusher,
  -- ref type and action.
  bulk_push_key     text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CHECK ((action = 'pushed') = (push_action IS NOT NULL AND push_ref_type IS NOT NULL AND push_commit_count IS NOT NULL))
);

-- The listing (by id, both directions), the action filter, and the before/after date filters.
CREATE INDEX project_events_project_id_idx ON project_events (project_id, id);
CREATE INDEX project_events_project_action_idx ON project_events (project_id, action, id);
CREATE INDEX project_events_project_created_at_idx ON project_events (project_id, created_at);
CREATE UNIQUE INDEX project_events_bulk_push_key ON project_events (project_id, bulk_push_key) WHERE bulk_push_key IS NOT NULL;

-- Down Migration
DROP TABLE project_events;
