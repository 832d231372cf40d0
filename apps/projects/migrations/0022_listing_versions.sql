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
-- of its query. The plan is a walk of the ids probing each table by key whatever the ids: generic from the first call.
-- Without the setting PostgreSQL's plan cache kept planning it again on every call (3,000 calls on one connection,
-- 10,000 projects: 0.67-0.71 ms of PostgreSQL a call with 3 or 20 ids, against 0.18-0.34 ms with it).
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
