-- Up Migration
-- The projects pending deletion, by id: few at any time, so a small index. A listing of the caller's projects alone
-- (membership=true) counts the ids its sources name less those found here, instead of probing every one of them in
-- projects (store/projects-store.ts, callerProjectsCount; 5,000 memberships at 1,000,000 projects: 26 -> 4-7 ms).
CREATE INDEX projects_pending_delete_idx ON projects (id) WHERE pending_delete;

-- Down Migration
DROP INDEX projects_pending_delete_idx;
