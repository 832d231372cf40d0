-- Up Migration
-- A listing of one visibility (an anonymous caller's, which reads public projects only; an administrator's or anyone's
-- `visibility=public|internal`) walked its ordering index past every project of the other visibilities: page 25 of 20
-- of `visibility=internal&order_by=last_activity_at` read 1,498 entries of projects_last_activity_at_cover_idx for 500
-- at 100,000 projects, a third of them internal (the ids' statement: 0.38 ms of execution). These partial indexes hold
-- one visibility's projects in each ordering, as GitLab's index_projects_api_vis20_* do for public ones, so the walk
-- reads the 500 (0.19 ms). The visibility is written into a listing's SQL as a literal (store/projects-store.ts,
-- listWhere), so the generic plans of such listings prove the predicate too.
--
-- Partial, not led by visibility: a signed-in user's listing tests `p.visibility IN ('public', 'internal') OR <their
-- projects>`, and PostgreSQL tries every index led by visibility against that OR arm, ~0.1 ms of planning per index on
-- every such listing (bench/README.md, "Visibility-led ordering indexes: measured, and not kept"). A partial index whose
-- predicate that arm does not imply is set aside after a predicate proof: these nine together add 0.01–0.06 ms of
-- planning to such a listing (bench/README.md, "Listings of one visibility read only its projects"). For the same
-- reason (visibility, id) gives way to one partial index of ids per visibility: the id and created_at orderings, and a
-- signed-in user's count of their private projects (1.8 → 1.1 ms of execution: the private ids' index is a third of
-- the size).
DROP INDEX projects_visibility_id_idx;
CREATE INDEX projects_public_id_idx ON projects (id) WHERE visibility = 'public' AND NOT pending_delete;
CREATE INDEX projects_internal_id_idx ON projects (id) WHERE visibility = 'internal' AND NOT pending_delete;
CREATE INDEX projects_private_id_idx ON projects (id) WHERE visibility = 'private' AND NOT pending_delete;
CREATE INDEX projects_public_last_activity_at_idx ON projects (last_activity_at, id) WHERE visibility = 'public' AND NOT pending_delete;
CREATE INDEX projects_internal_last_activity_at_idx ON projects (last_activity_at, id) WHERE visibility = 'internal' AND NOT pending_delete;
CREATE INDEX projects_public_updated_at_idx ON projects (updated_at, id) WHERE visibility = 'public' AND NOT pending_delete;
CREATE INDEX projects_internal_updated_at_idx ON projects (updated_at, id) WHERE visibility = 'internal' AND NOT pending_delete;
CREATE INDEX projects_public_star_count_idx ON projects (star_count, id) WHERE visibility = 'public' AND NOT pending_delete;
CREATE INDEX projects_internal_star_count_idx ON projects (star_count, id) WHERE visibility = 'internal' AND NOT pending_delete;

-- Down Migration
DROP INDEX projects_public_id_idx;
DROP INDEX projects_internal_id_idx;
DROP INDEX projects_private_id_idx;
DROP INDEX projects_public_last_activity_at_idx;
DROP INDEX projects_internal_last_activity_at_idx;
DROP INDEX projects_public_updated_at_idx;
DROP INDEX projects_internal_updated_at_idx;
DROP INDEX projects_public_star_count_idx;
DROP INDEX projects_internal_star_count_idx;
CREATE INDEX projects_visibility_id_idx ON projects (visibility, id) WHERE NOT pending_delete;
