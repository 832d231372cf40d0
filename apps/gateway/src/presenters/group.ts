import type { identityV1 } from '@glp/proto';
import type { UrlBuilder } from './urls';

const iso = (d?: Date) => (d ? d.toISOString() : null);

/**
 * `default_branch_protection_defaults` of a group without its own setting: the instance default,
 * `Gitlab::Access::BranchProtection.protected_fully` (default_branch_protection 2), keys in the order PostgreSQL's
 * jsonb keeps them. One frozen object, built once; each response serializes it.
 */
const PROTECTED_FULLY = Object.freeze({
  allowed_to_push: Object.freeze([Object.freeze({ access_level: 40 })]),
  allow_force_push: false,
  allowed_to_merge: Object.freeze([Object.freeze({ access_level: 40 })]),
  developer_can_initial_push: false,
});
const NO_SHARED_GROUPS: readonly never[] = Object.freeze([]);
/** `Organizations::Organization::DEFAULT_ORGANIZATION_ID`: every group belongs to the default organization. */
const DEFAULT_ORGANIZATION_ID = 1;

/** `Entities::Group` (listings, `with_projects=false`) or `Entities::GroupDetail` (create, update, show). */
export type GroupShape = 'group' | 'detail';

/**
 * GitLab's group entities (`lib/api/entities/basic_group_details.rb` → `group.rb` + `ee/.../group.rb` → `group_detail.rb`
 * + `ee/.../group_detail.rb`), for an instance without a license: values the Group message does not carry are GitLab's
 * defaults for a new group (settings this platform does not offer). ONE object literal, detail-only fields `undefined`
 * (omitted by JSON.stringify, like Grape's `expose ..., if:`), never a spread (see docs/architecture.md, hot path).
 *
 * GroupDetail's `projects` are the group's own projects the caller may read, `shared_projects` the projects shared
 * with the group (unexpired links) that the caller may read (both already presented, up to 100, as GitLab). Left out:
 * `runners_token` (no runners).
 */
export function presentGroup(
  g: identityV1.Group, urls: UrlBuilder, shape: GroupShape, projects: readonly unknown[] = [], sharedProjects: readonly unknown[] = [],
) {
  const detail = shape === 'detail';
  const root = g.parentId === 0;
  return {
    id: g.id,
    web_url: urls.group(g.fullPath),
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    share_with_group_lock: false,
    require_two_factor_authentication: false,
    two_factor_grace_period: 48,
    project_creation_level: 'developer',
    auto_devops_enabled: null,
    subgroup_creation_level: 'maintainer',
    emails_disabled: false,
    emails_enabled: true,
    show_diff_preview_in_email: true,
    mentions_disabled: null,
    lfs_enabled: true,
    archived: false,
    math_rendering_limits_enabled: true,
    lock_math_rendering_limits_enabled: false,
    default_branch: null,
    default_branch_protection: 2,
    default_branch_protection_defaults: PROTECTED_FULLY,
    avatar_url: null,
    request_access_enabled: g.requestAccessEnabled,
    full_name: g.fullName,
    full_path: g.fullPath,
    created_at: iso(g.createdAt),
    parent_id: root ? null : g.parentId,
    organization_id: DEFAULT_ORGANIZATION_ID,
    shared_runners_setting: 'enabled',
    max_artifacts_size: null,
    marked_for_deletion_on: g.markedForDeletionOn || null,
    ldap_cn: null,
    ldap_access: null,
    wiki_access_level: 'enabled',
    shared_with_groups: detail ? NO_SHARED_GROUPS : undefined,
    prevent_sharing_groups_outside_hierarchy: detail && root ? false : undefined,
    shared_runners_minutes_limit: detail ? null : undefined,
    extra_shared_runners_minutes_limit: detail ? null : undefined,
    prevent_forking_outside_group: detail ? false : undefined,
    membership_lock: detail ? false : undefined,
    projects: detail ? projects : undefined,
    shared_projects: detail ? sharedProjects : undefined,
  };
}

export const groupEntity = (g: identityV1.Group, urls: UrlBuilder) => presentGroup(g, urls, 'group');
export const groupDetail = (g: identityV1.Group, urls: UrlBuilder, projects: readonly unknown[] = [], sharedProjects: readonly unknown[] = []) =>
  presentGroup(g, urls, 'detail', projects, sharedProjects);

/** Ruby `String#inspect` (UTF-8 string): quotes, backslash escapes, `#{`/`#$`/`#@` escaped, other controls as `\uXXXX`. */
function rubyString(s: string): string {
  const named: Record<string, string> = {
    '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\f': '\\f', '\v': '\\v', '\b': '\\b', '\x07': '\\a', '\x1b': '\\e',
  };
  let out = '"';
  const chars = [...s];
  chars.forEach((ch, i) => {
    if (named[ch]) out += named[ch];
    else if (ch === '#' && ['{', '$', '@'].includes(chars[i + 1] ?? '')) out += '\\#';
    else if (ch.charCodeAt(0) < 0x20 || ch === '\x7f') out += `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  });
  return `${out}"`;
}

/** Ruby `Symbol#inspect`: `:path`, or `:"project_feature.x"` when the name is not a plain identifier. */
const rubySymbol = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*[?!]?$/.test(name) ? `:${name}` : `:${rubyString(name)}`);

/**
 * `errors.messages.inspect` as GitLab (Ruby 3.3) embeds it in POST /groups failures:
 * `{:path=>["has already been taken"], :name=>["can't be blank"]}`.
 */
export function rubyErrorsInspect(fields: Record<string, readonly string[]>): string {
  const pairs = Object.entries(fields).map(([k, v]) => `${rubySymbol(k)}=>[${v.map(rubyString).join(', ')}]`);
  return `{${pairs.join(', ')}}`;
}
