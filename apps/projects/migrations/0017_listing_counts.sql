-- Up Migration
-- How many projects not pending deletion there are per visibility and archived state, kept by triggers in the same
-- transaction as every write of projects (so a reader sees the counts of its own snapshot, never a stale cache).
-- A listing whose filters are only the caller's read scope, visibility and archived matches at least the projects of
-- some of these groups (all of them for an administrator, public + internal for a signed-in user, ...): when those
-- already exceed GitLab's count cap (10,000), the capped count walk, 10,001 index entries for every such page
-- (~1 ms on a fast core, 2.2 ms on a slow one), is skipped: its answer would be "more than the cap" anyway
-- (domain/list-filter.ts, countLowerBound).
--
-- Each writing backend adds to one of 16 slots (pg_backend_pid() % 16), so concurrent project creations do not wait
-- for each other on a single counter row; a reader sums the slots. Inserts and deletes are counted per statement with
-- transition tables (a bulk INSERT ... SELECT or COPY of a million projects updates a handful of rows once); updates
-- per row, only where visibility, archived or pending_delete changed.
CREATE TABLE project_listing_counts (
  slot       smallint NOT NULL,
  visibility text     NOT NULL,
  archived   boolean  NOT NULL,
  n          bigint   NOT NULL,
  PRIMARY KEY (visibility, archived, slot)
);

CREATE FUNCTION project_listing_counts_apply() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO project_listing_counts AS c (slot, visibility, archived, n)
    SELECT pg_backend_pid() % 16, visibility, archived, count(*) FROM new_rows WHERE NOT pending_delete GROUP BY visibility, archived
    ON CONFLICT (visibility, archived, slot) DO UPDATE SET n = c.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO project_listing_counts AS c (slot, visibility, archived, n)
    SELECT pg_backend_pid() % 16, visibility, archived, -count(*) FROM old_rows WHERE NOT pending_delete GROUP BY visibility, archived
    ON CONFLICT (visibility, archived, slot) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$;

-- One project changed visibility, archived state or pending deletion: out of its old group, into its new one.
CREATE FUNCTION project_listing_counts_move() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO project_listing_counts AS c (slot, visibility, archived, n)
  SELECT pg_backend_pid() % 16, x.visibility, x.archived, x.delta
  FROM (VALUES (OLD.visibility, OLD.archived, OLD.pending_delete, -1), (NEW.visibility, NEW.archived, NEW.pending_delete, 1))
    AS x (visibility, archived, pending_delete, delta)
  WHERE NOT x.pending_delete
  ON CONFLICT (visibility, archived, slot) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END;
$$;

CREATE FUNCTION project_listing_counts_reset() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM project_listing_counts;
  RETURN NULL;
END;
$$;

-- The triggers take projects' SHARE ROW EXCLUSIVE lock, held to the end of the migration's transaction: no project is
-- written between them and the first count below.
CREATE TRIGGER project_listing_counts_insert AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION project_listing_counts_apply();
-- Per row, and only for the rows whose group changed: the WHEN is checked without calling any function, so an update
-- of anything else (last activity, star count, settings: most writes of projects) costs nothing here.
CREATE TRIGGER project_listing_counts_update AFTER UPDATE OF visibility, archived, pending_delete ON projects FOR EACH ROW
  WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.archived IS DISTINCT FROM NEW.archived
        OR OLD.pending_delete IS DISTINCT FROM NEW.pending_delete)
  EXECUTE FUNCTION project_listing_counts_move();
CREATE TRIGGER project_listing_counts_delete AFTER DELETE ON projects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION project_listing_counts_apply();
CREATE TRIGGER project_listing_counts_truncate AFTER TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION project_listing_counts_reset();

INSERT INTO project_listing_counts (slot, visibility, archived, n)
SELECT 0, visibility, archived, count(*) FROM projects WHERE NOT pending_delete GROUP BY visibility, archived;

-- Down Migration
DROP TRIGGER project_listing_counts_truncate ON projects;
DROP TRIGGER project_listing_counts_delete ON projects;
DROP TRIGGER project_listing_counts_update ON projects;
DROP TRIGGER project_listing_counts_insert ON projects;
DROP FUNCTION project_listing_counts_reset();
DROP FUNCTION project_listing_counts_move();
DROP FUNCTION project_listing_counts_apply();
DROP TABLE project_listing_counts;
