import type { identityV1 } from '@glp/proto';

/**
 * GitLab's `Entities::ApplicationSetting` (lib/api/entities/application_setting.rb), as far as this platform has it:
 * the settings identity stores with their real values, and GitLab's defaults for the common fields clients read
 * (python-gitlab's `gl.settings.get()` needs an object with `id`) where the default is what this platform does:
 * projects limit 100000 (identity's default), no sign-up, private defaults, no restricted levels, hashed storage, pull
 * mirrors, GitLab's push_event_hooks_limit 3 (the webhook-dispatcher's rule). ONE object literal (no spread).
 */
export function applicationSettingEntity(s: identityV1.ApplicationSettings | undefined) {
  const allowlist = s?.outboundLocalRequestsAllowlist ?? [];
  const allowLocal = s?.allowLocalRequestsFromWebHooksAndServices ?? false;
  return {
    id: 1,
    default_projects_limit: 100000,
    signup_enabled: false,
    default_project_visibility: 'private',
    default_group_visibility: 'private',
    default_snippet_visibility: 'private',
    restricted_visibility_levels: [] as string[],
    hashed_storage_enabled: true,
    mirror_available: true,
    push_event_hooks_limit: 3,
    allow_local_requests_from_web_hooks_and_services: allowLocal,
    // GitLab's legacy name, exposed alongside (`expose ..., as: :allow_local_requests_from_hooks_and_services`).
    allow_local_requests_from_hooks_and_services: allowLocal,
    allow_local_requests_from_system_hooks: s?.allowLocalRequestsFromSystemHooks ?? true,
    outbound_local_requests_whitelist: allowlist,
    // ApplicationSettingImplementation#outbound_local_requests_allowlist_raw: the entries one per line.
    outbound_local_requests_allowlist_raw: allowlist.join('\n'),
    deny_all_requests_except_allowed: s?.denyAllRequestsExceptAllowed ?? false,
    // Days a project marked for deletion waits before it is removed (GitLab's default 7).
    deletion_adjourned_period: s?.deletionAdjournedPeriod || 7,
  };
}
