import type { projectsV1, repoAdminV1 } from '@glp/proto';

const iso = (d?: Date) => (d ? d.toISOString() : null);

/**
 * GitLab's PullMirror entity (`ee/lib/api/entities/pull_mirror.rb`): the mirror's update state (repo-admin's; none
 * recorded yet: `none` and nulls) and its configuration (projects'), with the URL masked (`safe_import_url`).
 */
export function pullMirrorEntity(project: projectsV1.Project, state: repoAdminV1.PullMirrorState | undefined) {
  const m = project.mirror;
  return {
    id: project.id,
    update_status: state?.updateStatus || 'none',
    url: project.importUrl || null,
    last_error: state?.lastError || null,
    last_update_at: iso(state?.lastUpdateAt),
    last_update_started_at: iso(state?.lastUpdateStartedAt),
    last_successful_update_at: iso(state?.lastSuccessfulUpdateAt),
    enabled: m?.mirror ?? false,
    mirror_trigger_builds: m?.mirrorTriggerBuilds ?? false,
    only_mirror_protected_branches: m?.onlyMirrorProtectedBranches ?? false,
    mirror_overwrites_diverged_branches: m?.mirrorOverwritesDivergedBranches ?? false,
    mirror_branch_regex: m?.mirrorBranchRegex || null,
  };
}
