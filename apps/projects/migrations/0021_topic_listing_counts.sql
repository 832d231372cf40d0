-- Up Migration
-- How many projects not pending deletion carry each topic, per visibility and archived state: project_listing_counts
-- (0017) by topic, kept by triggers in the same transaction as every write of projects in the same way. A listing
-- filtered by one topic (`topic=t7`) has a lower bound from these as a listing without it has from 0017's
-- (domain/list-filter.ts, countLowerBound): at 1,000,000 projects a member's `topic=t7` walked 10,001 matches to
-- learn "more than the cap", each tested for visibility and pending deletion on its heap page (15,001 pages, ~90 ms of
-- PostgreSQL), where these rows answer it at once; below the cap, they are its total with the caller's own private
-- projects added.
--
-- Topics are counted as the listing matches them: the lower-cased topics (topics_lower, 0015), each once per project.
-- Slots as in 0017 (pg_backend_pid() % 16). A topic no project carries any more keeps rows summing to zero, which
-- read as zero.
CREATE TABLE project_topic_listing_counts (
  topic      text     NOT NULL,
  visibility text     NOT NULL,
  archived   boolean  NOT NULL,
  slot       smallint NOT NULL,
  n          bigint   NOT NULL,
  PRIMARY KEY (topic, visibility, archived, slot)
);

CREATE FUNCTION project_topic_listing_counts_apply() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO project_topic_listing_counts AS c (topic, visibility, archived, slot, n)
    SELECT t.topic, r.visibility, r.archived, pg_backend_pid() % 16, count(*)
    FROM new_rows r CROSS JOIN LATERAL (SELECT DISTINCT unnest(r.topics_lower) AS topic) t
    WHERE NOT r.pending_delete GROUP BY 1, 2, 3
    ON CONFLICT (topic, visibility, archived, slot) DO UPDATE SET n = c.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO project_topic_listing_counts AS c (topic, visibility, archived, slot, n)
    SELECT t.topic, r.visibility, r.archived, pg_backend_pid() % 16, -count(*)
    FROM old_rows r CROSS JOIN LATERAL (SELECT DISTINCT unnest(r.topics_lower) AS topic) t
    WHERE NOT r.pending_delete GROUP BY 1, 2, 3
    ON CONFLICT (topic, visibility, archived, slot) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$;

-- One project changed topics, visibility, archived state or pending deletion: its old topics out of their old group,
-- its new ones into their new group (a topic that stays in the same group nets to nothing and is not written).
CREATE FUNCTION project_topic_listing_counts_move() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO project_topic_listing_counts AS c (topic, visibility, archived, slot, n)
  SELECT t.topic, x.visibility, x.archived, pg_backend_pid() % 16, sum(x.delta)
  FROM (VALUES (OLD.topics_lower, OLD.visibility, OLD.archived, OLD.pending_delete, -1),
               (NEW.topics_lower, NEW.visibility, NEW.archived, NEW.pending_delete, 1))
    AS x (topics, visibility, archived, pending_delete, delta)
  CROSS JOIN LATERAL (SELECT DISTINCT unnest(x.topics) AS topic) t
  WHERE NOT x.pending_delete
  GROUP BY 1, 2, 3
  HAVING sum(x.delta) <> 0
  ON CONFLICT (topic, visibility, archived, slot) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END;
$$;

CREATE FUNCTION project_topic_listing_counts_reset() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM project_topic_listing_counts;
  RETURN NULL;
END;
$$;

CREATE TRIGGER project_topic_listing_counts_insert AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION project_topic_listing_counts_apply();
-- topics_lower is generated from topics, so an update sets topics (a generated column is never a SET target); the
-- WHEN compares the lower-cased ones, so a change of case alone writes nothing.
CREATE TRIGGER project_topic_listing_counts_update AFTER UPDATE OF topics, visibility, archived, pending_delete ON projects FOR EACH ROW
  WHEN (OLD.topics_lower IS DISTINCT FROM NEW.topics_lower OR OLD.visibility IS DISTINCT FROM NEW.visibility
        OR OLD.archived IS DISTINCT FROM NEW.archived OR OLD.pending_delete IS DISTINCT FROM NEW.pending_delete)
  EXECUTE FUNCTION project_topic_listing_counts_move();
CREATE TRIGGER project_topic_listing_counts_delete AFTER DELETE ON projects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION project_topic_listing_counts_apply();
CREATE TRIGGER project_topic_listing_counts_truncate AFTER TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION project_topic_listing_counts_reset();

INSERT INTO project_topic_listing_counts (topic, visibility, archived, slot, n)
SELECT t.topic, p.visibility, p.archived, 0, count(*)
FROM projects p CROSS JOIN LATERAL (SELECT DISTINCT unnest(p.topics_lower) AS topic) t
WHERE NOT p.pending_delete GROUP BY 1, 2, 3;

-- Down Migration
DROP TRIGGER project_topic_listing_counts_truncate ON projects;
DROP TRIGGER project_topic_listing_counts_delete ON projects;
DROP TRIGGER project_topic_listing_counts_update ON projects;
DROP TRIGGER project_topic_listing_counts_insert ON projects;
DROP FUNCTION project_topic_listing_counts_reset();
DROP FUNCTION project_topic_listing_counts_move();
DROP FUNCTION project_topic_listing_counts_apply();
DROP TABLE project_topic_listing_counts;
