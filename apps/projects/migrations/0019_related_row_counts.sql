-- Up Migration
-- How many group links, fork sources and import sources each project has, kept by triggers in the same transaction as
-- every write of those tables (cascades included), so that reading a project probes them only when it has one. The
-- select list of a project (store/project-rows.ts) read them through three correlated subqueries, each an index probe
-- for every project read, almost always finding nothing: 60 probes for a page of 20, ~0.2 ms of PostgreSQL's ~0.55 ms
-- for the page's rows at 100,000 projects (bench/README.md). A count, not a flag: links of one project added and
-- removed by concurrent transactions add up whatever their order (a flag set from "is there any left?" could be
-- written last by the transaction that did not see the other's new link). A project's own row is locked for the
-- update, as forks_count's trigger (0007) already does for a fork's source.
ALTER TABLE projects
  ADD COLUMN group_link_count    integer NOT NULL DEFAULT 0,
  ADD COLUMN fork_source_count   integer NOT NULL DEFAULT 0,
  ADD COLUMN import_source_count integer NOT NULL DEFAULT 0;

-- TG_ARGV[0]: the projects column counting the trigger's table's rows, by their project_id.
CREATE FUNCTION project_related_rows_counted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    EXECUTE format('UPDATE projects SET %1$I = %1$I - 1 WHERE id = $1', TG_ARGV[0]) USING OLD.project_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    EXECUTE format('UPDATE projects SET %1$I = %1$I + 1 WHERE id = $1', TG_ARGV[0]) USING NEW.project_id;
  END IF;
  RETURN NULL;
END $$;

-- The triggers take their tables' SHARE ROW EXCLUSIVE lock, held to the end of the migration's transaction: no row is
-- written between them and the counts below.
CREATE TRIGGER project_group_links_counted AFTER INSERT OR DELETE OR UPDATE OF project_id ON project_group_links
  FOR EACH ROW EXECUTE FUNCTION project_related_rows_counted('group_link_count');
CREATE TRIGGER project_forks_counted AFTER INSERT OR DELETE OR UPDATE OF project_id ON project_forks
  FOR EACH ROW EXECUTE FUNCTION project_related_rows_counted('fork_source_count');
CREATE TRIGGER project_import_sources_counted AFTER INSERT OR DELETE OR UPDATE OF project_id ON project_import_sources
  FOR EACH ROW EXECUTE FUNCTION project_related_rows_counted('import_source_count');

UPDATE projects p SET group_link_count = l.n
FROM (SELECT project_id, count(*)::integer AS n FROM project_group_links GROUP BY project_id) l WHERE l.project_id = p.id;
UPDATE projects p SET fork_source_count = 1 FROM project_forks f WHERE f.project_id = p.id;
UPDATE projects p SET import_source_count = 1 FROM project_import_sources i WHERE i.project_id = p.id;

-- Down Migration
DROP TRIGGER project_import_sources_counted ON project_import_sources;
DROP TRIGGER project_forks_counted ON project_forks;
DROP TRIGGER project_group_links_counted ON project_group_links;
DROP FUNCTION project_related_rows_counted();
ALTER TABLE projects DROP COLUMN group_link_count, DROP COLUMN fork_source_count, DROP COLUMN import_source_count;
