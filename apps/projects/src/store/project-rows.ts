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

/** Projects with their namespace and the caller's unexpired membership; `$1` is the caller's user id (0 for none). */
export const PROJECT_FROM = `
    FROM projects p
    JOIN namespaces n ON n.id = p.namespace_id
    LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = $1 AND (m.expires_at IS NULL OR m.expires_at > current_date)`;

export const PROJECT_SELECT = `
  SELECT p.id, p.namespace_id, p.name, p.path, p.description, p.visibility, p.creator_id, p.default_branch, p.archived,
         p.star_count, p.forks_count, p.topics, p.settings, p.import_status, p.repository_storage, p.pending_delete,
         to_char(p.marked_for_deletion_on, 'YYYY-MM-DD') AS marked_for_deletion_on,
         p.created_at, p.updated_at, p.last_activity_at,
         n.name AS ns_name, n.path AS ns_path, n.kind AS ns_kind, n.full_path AS ns_full_path, n.parent_id AS ns_parent_id,
         n.owner_id AS ns_owner_id, n.owner_username, n.owner_name, n.owner_state,
         COALESCE(m.access_level, 0) AS member_access,
         COALESCE((SELECT json_agg(json_build_object('group_id', l.group_id, 'group_access', l.group_access,
                     'expires_at', to_char(l.expires_at, 'YYYY-MM-DD'), 'group_name', g.name, 'group_full_path', g.full_path) ORDER BY l.group_id)
                   FROM project_group_links l LEFT JOIN namespaces g ON g.id = l.group_id
                   WHERE l.project_id = p.id AND (l.expires_at IS NULL OR l.expires_at > current_date)), '[]') AS share_links${PROJECT_FROM}`;
