import type { Settings } from '../domain/project-settings';
import type { VisibilityLevel } from '../domain/visibility';

/** A project joined with its namespace (read model) and the caller's membership. */
export interface ProjectRow {
  id: number;
  namespace_id: number;
  name: string;
  path: string;
  description: string | null;
  visibility: VisibilityLevel;
  creator_id: number;
  default_branch: string | null;
  archived: boolean;
  star_count: number;
  forks_count: number;
  topics: string[];
  settings: Settings;
  import_status: string;
  repository_storage: string;
  pending_delete: boolean;
  /** YYYY-MM-DD when marked for deletion. */
  marked_for_deletion_on: string | null;
  created_at: Date;
  updated_at: Date;
  last_activity_at: Date;
  ns_name: string;
  ns_path: string;
  ns_kind: string;
  ns_full_path: string;
  ns_parent_id: number | null;
  ns_owner_id: number | null;
  owner_username: string | null;
  owner_name: string | null;
  owner_state: string | null;
  member_access: number;
  /** The project's unexpired share links, ordered by group id (one subquery of the same statement). */
  share_links: ShareLinkRow[];
  /** The last import (fork copy) failure. */
  import_error: string | null;
  /** No commit in the repository yet (repo-admin's RepositoryChanged). */
  empty_repo: boolean;
  /** The import source (masked URL and mirror configuration) when the repository is imported from a URL, else null. */
  import_source: ImportSourceJson | null;
  /** The runner registration token (a secret: only administrators of the project may be shown it). */
  runners_token: string;
  /** The project this one is a fork of (one subquery of the same statement), or null. */
  fork_source: ForkSourceRow | null;
  /** The project row's version (`p.xmin`): another with every write of the row (grpc/encoded-projects.ts). */
  row_version: string;
  /** Its namespace row's version (`n.xmin`). */
  namespace_version: string;
  /** No group link, fork source or import source (the counts of migration 0019): nothing of it read from other rows. */
  self_contained: boolean;
}

/** An import source as the project row carries it (no credentials: the masked URL only). */
export interface ImportSourceJson {
  url_masked: string;
  import_type: string;
  mirror: boolean;
  mirror_trigger_builds: boolean;
  only_mirror_protected_branches: boolean;
  mirror_overwrites_diverged_branches: boolean;
  mirror_user_id: number | null;
  mirror_branch_regex: string | null;
}

/**
 * A fork's source as a listing shows it (BasicProjectDetails) and what deciding whether the caller may read it needs.
 * Built by `json_build_object`: timestamps arrive as ISO strings.
 */
export interface ForkSourceRow {
  id: number;
  name: string;
  path: string;
  description: string | null;
  visibility: VisibilityLevel;
  default_branch: string | null;
  topics: string[];
  star_count: number;
  forks_count: number;
  settings: Settings;
  pending_delete: boolean;
  created_at: string;
  last_activity_at: string;
  namespace_id: number;
  ns_name: string;
  ns_path: string;
  ns_kind: string;
  ns_full_path: string;
  ns_parent_id: number | null;
  ns_owner_id: number | null;
  owner_name: string | null;
  member_access: number;
  /** Group ids and levels of the source's unexpired share links. */
  share_links: { group_id: number; group_access: number }[];
}

/** A link sharing the project with a group, with the group's name and full path from the namespaces read model. */
export interface ShareLinkRow {
  group_id: number;
  group_access: number;
  /** YYYY-MM-DD, null when it does not expire. */
  expires_at: string | null;
  group_name: string | null;
  group_full_path: string | null;
}

/** The namespace (`n`) and the caller's unexpired membership (`m`) of a project `p`; `$1` is the caller's user id (0 for none). */
export const PROJECT_JOINS = `
    JOIN namespaces n ON n.id = p.namespace_id
    LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = $1 AND (m.expires_at IS NULL OR m.expires_at > current_date)`;

/** Projects with their namespace and the caller's unexpired membership; `$1` is the caller's user id (0 for none). */
export const PROJECT_FROM = `
    FROM projects p${PROJECT_JOINS}`;

/**
 * The fork source of `p` as JSON (ForkSourceRow) with the caller's (`$1`) unexpired membership there; for a fork only
 * (`fork_source_count`, migration 0019), so a project that is not one costs no probe.
 */
const FORK_SOURCE = `CASE WHEN p.fork_source_count > 0 THEN (SELECT json_build_object('id', s.id, 'name', s.name, 'path', s.path, 'description', s.description,
           'visibility', s.visibility, 'default_branch', s.default_branch, 'topics', s.topics, 'star_count', s.star_count,
           'forks_count', s.forks_count, 'settings', s.settings, 'pending_delete', s.pending_delete, 'created_at', s.created_at,
           'last_activity_at', s.last_activity_at, 'namespace_id', s.namespace_id, 'ns_name', sn.name, 'ns_path', sn.path,
           'ns_kind', sn.kind, 'ns_full_path', sn.full_path, 'ns_parent_id', sn.parent_id, 'ns_owner_id', sn.owner_id,
           'owner_name', sn.owner_name, 'member_access', COALESCE(sm.access_level, 0),
           'share_links', CASE WHEN s.group_link_count > 0 THEN COALESCE((SELECT json_agg(json_build_object('group_id', sl.group_id, 'group_access', sl.group_access))
                                    FROM project_group_links sl
                                    WHERE sl.project_id = s.id AND (sl.expires_at IS NULL OR sl.expires_at > current_date)), '[]') ELSE '[]' END)
         FROM project_forks f
         JOIN projects s ON s.id = f.forked_from_project_id
         JOIN namespaces sn ON sn.id = s.namespace_id
         LEFT JOIN project_members sm ON sm.project_id = s.id AND sm.user_id = $1 AND (sm.expires_at IS NULL OR sm.expires_at > current_date)
         WHERE f.project_id = p.id) END`;

/** The import source of `p` as JSON (ImportSourceJson), or null: one primary-key probe, for a project that has one. */
const IMPORT_SOURCE = `CASE WHEN p.import_source_count > 0 THEN (SELECT json_build_object('url_masked', i.url_masked, 'import_type', i.import_type, 'mirror', i.mirror,
           'mirror_trigger_builds', i.mirror_trigger_builds, 'only_mirror_protected_branches', i.only_mirror_protected_branches,
           'mirror_overwrites_diverged_branches', i.mirror_overwrites_diverged_branches, 'mirror_user_id', i.mirror_user_id,
           'mirror_branch_regex', i.mirror_branch_regex)
         FROM project_import_sources i WHERE i.project_id = p.id) END`;

/**
 * What a listed project's kept encoding is keyed by (grpc/encoded-projects.ts `encodingKey`): the caller's membership
 * level, the project's and its namespace's row versions, and whether its answer reads no other row. PROJECT_SELECT reads
 * them with the same expressions as the function listing_versions (migration 0022), which reads them without the row,
 * so a key made from either names the same content; a change here is a migration changing that function too.
 */
export const VERSION_COLUMNS = `COALESCE(m.access_level, 0) AS member_access, p.xmin::text AS row_version, n.xmin::text AS namespace_version,
         p.group_link_count + p.fork_source_count + p.import_source_count = 0 AS self_contained`;

/**
 * A project's row as ProjectRow (`$1` the caller). Its group links, fork source and import source are read only for a
 * project that has some (the counts of migration 0019): most projects have none, and each was an index probe.
 */
export const PROJECT_SELECT = `
  SELECT p.id, p.namespace_id, p.name, p.path, p.description, p.visibility, p.creator_id, p.default_branch, p.archived,
         p.star_count, p.forks_count, p.topics, p.settings, p.import_status, p.repository_storage, p.pending_delete,
         to_char(p.marked_for_deletion_on, 'YYYY-MM-DD') AS marked_for_deletion_on,
         p.created_at, p.updated_at, p.last_activity_at,
         n.name AS ns_name, n.path AS ns_path, n.kind AS ns_kind, n.full_path AS ns_full_path, n.parent_id AS ns_parent_id,
         n.owner_id AS ns_owner_id, n.owner_username, n.owner_name, n.owner_state,
         CASE WHEN p.group_link_count > 0 THEN COALESCE((SELECT json_agg(json_build_object('group_id', l.group_id, 'group_access', l.group_access,
                     'expires_at', to_char(l.expires_at, 'YYYY-MM-DD'), 'group_name', g.name, 'group_full_path', g.full_path) ORDER BY l.group_id)
                   FROM project_group_links l LEFT JOIN namespaces g ON g.id = l.group_id
                   WHERE l.project_id = p.id AND (l.expires_at IS NULL OR l.expires_at > current_date)), '[]') ELSE '[]' END AS share_links,
         p.import_error, p.runners_token, p.empty_repo, ${FORK_SOURCE} AS fork_source,
         ${IMPORT_SOURCE} AS import_source, ${VERSION_COLUMNS}${PROJECT_FROM}`;

/** What a listed project's kept encoding is keyed by, read without the rest of its row (listing_versions, migration 0022). */
export type ProjectVersionRow = Pick<ProjectRow, 'id' | 'namespace_id' | 'member_access' | 'row_version' | 'namespace_version' | 'self_contained'>;
