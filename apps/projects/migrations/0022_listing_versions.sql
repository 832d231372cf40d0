-- Up Migration
-- What the kept encodings of listed projects are keyed by (grpc/encoded-projects.ts `encodingKey`), for projects of
-- these ids as the caller sees them, in the ids' order (`ord`): the caller's membership level, the project's and its
-- namespace's row versions, and whether its answer reads no other row. The expressions are VERSION_COLUMNS'
-- (store/project-rows.ts), which the rows' statement reads the same way: a key made from either names the same content
-- (integration test encoded-project-listings.test.ts: every answer from a kept encoding is the one encoded afresh).
--
-- A function so that a listing's page ids, its count's bound and its versions are one statement (one round trip,
-- store/projects-store.ts pageIdsWithBound) whose joins are not planned again on every listing: written inline in
-- the ids' statement they cost PostgreSQL ~0.5 ms of planning per listing (bench/README.md); PL/pgSQL keeps the plan
-- of its query. The plan is a walk of the ids probing each table by key whatever the ids: generic from the first call
-- (without the setting, fewer than 10 ids, e.g. per_page=5, would be planned again on every call, as
-- projects-store.ts idsForGenericPlan describes for the named statements).
CREATE FUNCTION listing_versions(ids bigint[], caller bigint)
RETURNS TABLE (id bigint, namespace_id bigint, member_access integer, row_version text, namespace_version text, self_contained boolean, ord bigint)
LANGUAGE plpgsql STABLE
SET search_path FROM CURRENT
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  RETURN QUERY
    SELECT p.id, p.namespace_id, COALESCE(m.access_level, 0), p.xmin::text, n.xmin::text,
           p.group_link_count + p.fork_source_count + p.import_source_count = 0, page.ord
    FROM unnest(ids) WITH ORDINALITY AS page (id, ord)
    JOIN projects p ON p.id = page.id
    JOIN namespaces n ON n.id = p.namespace_id
    LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = caller AND (m.expires_at IS NULL OR m.expires_at > current_date);
END;
$$;

-- Down Migration
DROP FUNCTION listing_versions(bigint[], bigint);
