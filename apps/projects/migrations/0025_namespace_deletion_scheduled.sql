-- Up Migration
-- The namespaces read model learns from identity whether a group or one of its ancestors is marked for deletion
-- (NamespaceChanged): GET /projects?active= leaves out (or keeps only) the projects of such groups, as GitLab 18's
-- ProjectsFinder does. Few groups are marked: the partial index lists them for the listing's one InitPlan.
ALTER TABLE namespaces ADD COLUMN self_or_ancestor_marked boolean NOT NULL DEFAULT false;
CREATE INDEX namespaces_self_or_ancestor_marked_idx ON namespaces (id) WHERE self_or_ancestor_marked;

-- Down Migration
DROP INDEX namespaces_self_or_ancestor_marked_idx;
ALTER TABLE namespaces DROP COLUMN self_or_ancestor_marked;
