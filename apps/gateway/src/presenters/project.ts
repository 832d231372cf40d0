import { projectsV1 } from '@glp/proto';
import type { UrlBuilder } from './urls';

const iso = (d?: Date) => (d ? d.toISOString() : null);
/** The instance default branch name, shown while a repository has none (GitLab renders the fallback). */
export const INSTANCE_DEFAULT_BRANCH = 'main';
const GUEST = 10;
const REPORTER = 20;
const MAINTAINER = 40;

export function visibilityName(v: projectsV1.Visibility): 'private' | 'internal' | 'public' {
  if (v === projectsV1.Visibility.VISIBILITY_PUBLIC) return 'public';
  if (v === projectsV1.Visibility.VISIBILITY_INTERNAL) return 'internal';
  return 'private';
}

export interface Viewer {
  /** Signed in (not anonymous). */
  authenticated: boolean;
  admin: boolean;
}

/** Can the viewer read the code (repository feature enabled for them)? */
function canReadCode(p: projectsV1.Project, viewer: Viewer): boolean {
  const level = p.settings?.repositoryAccessLevel ?? 'enabled';
  if (level === 'disabled') return false;
  if (level === 'private') return viewer.admin || p.callerAccessLevel >= REPORTER;
  return viewer.admin || p.callerAccessLevel >= GUEST || visibilityName(p.visibility) !== 'private';
}

function namespaceEntity(p: projectsV1.Project, urls: UrlBuilder) {
  const ns = p.namespace;
  return {
    id: ns?.id ?? 0,
    name: ns?.name ?? '',
    path: ns?.path ?? '',
    kind: ns?.kind ?? 'user',
    full_path: ns?.fullPath ?? '',
    parent_id: ns?.parentId || null,
    avatar_url: ns?.avatarUrl || null,
    web_url: ns?.kind === 'group' ? urls.web(`groups/${ns.fullPath}`) : urls.web(ns?.fullPath ?? ''),
  };
}

/** ProjectIdentity + BasicProjectDetails. */
export function basicProjectDetails(p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) {
  const ns = p.namespace;
  const pwn = `${ns?.fullPath ?? ''}/${p.path}`;
  const code = canReadCode(p, viewer);
  return {
    id: p.id,
    description: p.description ?? null,
    name: p.name,
    name_with_namespace: `${p.owner?.name || ns?.name || ''} / ${p.name}`,
    path: p.path,
    path_with_namespace: pwn,
    created_at: iso(p.createdAt),
    ...(code ? { default_branch: p.defaultBranch || INSTANCE_DEFAULT_BRANCH } : {}),
    tag_list: p.topics,
    topics: p.topics,
    ssh_url_to_repo: urls.sshRepo(pwn),
    http_url_to_repo: urls.web(`${pwn}.git`),
    web_url: urls.web(pwn),
    ...(code ? { readme_url: null, forks_count: p.forksCount } : {}),
    avatar_url: null,
    star_count: p.starCount,
    last_activity_at: iso(p.lastActivityAt),
    namespace: namespaceEntity(p, urls),
    ...(viewer.admin ? { repository_storage: p.repositoryStorage } : {}),
  };
}

/** The full Project entity (create, update, and the body of GET for signed-in callers). */
export function projectEntity(p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) {
  const s = p.settings ?? projectsV1.ProjectSettings.fromPartial({});
  const enabled = (level?: string) => level !== undefined && level !== 'disabled';
  const maintainer = viewer.admin || p.callerAccessLevel >= MAINTAINER;
  const self = urls.api(`projects/${p.id}`);
  const visibility = visibilityName(p.visibility);
  const issues = enabled(s.issuesAccessLevel);
  const mrs = enabled(s.mergeRequestsAccessLevel);
  return {
    ...basicProjectDetails(p, urls, viewer),
    container_registry_image_prefix: `registry.${urls.host}/${p.namespace?.fullPath ?? ''}/${p.path}`.toLowerCase(),
    _links: {
      self,
      ...(issues ? { issues: `${self}/issues` } : {}),
      ...(mrs ? { merge_requests: `${self}/merge_requests` } : {}),
      repo_branches: `${self}/repository/branches`,
      labels: `${self}/labels`,
      events: `${self}/events`,
      members: `${self}/members`,
      cluster_agents: `${self}/cluster_agents`,
    },
    packages_enabled: s.packagesEnabled ?? true,
    empty_repo: p.emptyRepo,
    archived: p.archived,
    visibility,
    ...(p.owner ? {
      owner: {
        id: p.owner.id, username: p.owner.username, public_email: null, name: p.owner.name, state: p.owner.state, locked: false,
        avatar_url: p.owner.avatarUrl || null, web_url: urls.web(p.owner.username),
      },
    } : {}),
    resolve_outdated_diff_discussions: s.resolveOutdatedDiffDiscussions ?? false,
    container_expiration_policy: {
      cadence: '1d', enabled: false, keep_n: 10, older_than: '90d', name_regex: '.*', name_regex_keep: null,
      next_run_at: iso(new Date((p.createdAt?.getTime() ?? Date.now()) + 86400000)),
    },
    repository_object_format: s.repositoryObjectFormat ?? 'sha1',
    issues_enabled: issues,
    merge_requests_enabled: mrs,
    wiki_enabled: enabled(s.wikiAccessLevel),
    jobs_enabled: enabled(s.buildsAccessLevel),
    snippets_enabled: enabled(s.snippetsAccessLevel),
    container_registry_enabled: enabled(s.containerRegistryAccessLevel),
    service_desk_enabled: s.serviceDeskEnabled ?? false,
    service_desk_address: null,
    can_create_merge_request_in: p.callerAccessLevel >= 30 || viewer.admin,
    issues_access_level: s.issuesAccessLevel,
    repository_access_level: s.repositoryAccessLevel,
    merge_requests_access_level: s.mergeRequestsAccessLevel,
    forking_access_level: s.forkingAccessLevel,
    wiki_access_level: s.wikiAccessLevel,
    builds_access_level: s.buildsAccessLevel,
    snippets_access_level: s.snippetsAccessLevel,
    pages_access_level: s.pagesAccessLevel,
    analytics_access_level: s.analyticsAccessLevel,
    container_registry_access_level: s.containerRegistryAccessLevel,
    security_and_compliance_access_level: s.securityAndComplianceAccessLevel,
    releases_access_level: s.releasesAccessLevel,
    environments_access_level: s.environmentsAccessLevel,
    feature_flags_access_level: s.featureFlagsAccessLevel,
    infrastructure_access_level: s.infrastructureAccessLevel,
    monitor_access_level: s.monitorAccessLevel,
    model_experiments_access_level: 'enabled',
    model_registry_access_level: 'enabled',
    emails_disabled: !(s.emailsEnabled ?? true),
    emails_enabled: s.emailsEnabled ?? true,
    shared_runners_enabled: s.sharedRunnersEnabled ?? true,
    lfs_enabled: s.lfsEnabled ?? true,
    creator_id: p.creatorId,
    import_url: null,
    import_type: null,
    import_status: p.importStatus || 'none',
    ...(maintainer ? { import_error: null } : {}),
    ...(issues ? { open_issues_count: p.openIssuesCount } : {}),
    description_html: p.description ? `<p data-sourcepos="1:1-1:${p.description.length}" dir="auto">${escapeHtml(p.description)}</p>` : '',
    updated_at: iso(p.updatedAt),
    ...(maintainer ? {
      ci_default_git_depth: s.ciDefaultGitDepth,
      ci_delete_pipelines_in_seconds: null,
      ci_forward_deployment_enabled: s.ciForwardDeploymentEnabled,
      ci_forward_deployment_rollback_allowed: true,
      ci_job_token_scope_enabled: false,
      ci_separated_caches: true,
      ci_allow_fork_pipelines_to_run_in_parent_project: true,
      ci_id_token_sub_claim_components: ['project_path', 'ref_type', 'ref'],
      build_git_strategy: s.buildGitStrategy,
      keep_latest_artifact: s.keepLatestArtifact,
      restrict_user_defined_variables: s.restrictUserDefinedVariables,
      ci_pipeline_variables_minimum_override_role: 'developer',
      runners_token: null,
      runner_token_expiration_interval: null,
      group_runners_enabled: s.groupRunnersEnabled,
      auto_cancel_pending_pipelines: s.autoCancelPendingPipelines,
      build_timeout: s.buildTimeout,
      auto_devops_enabled: s.autoDevopsEnabled,
      auto_devops_deploy_strategy: s.autoDevopsDeployStrategy,
      ci_push_repository_for_job_token_allowed: false,
    } : {}),
    ci_config_path: s.ciConfigPath || null,
    public_jobs: s.publicJobs,
    shared_with_groups: [],
    only_allow_merge_if_pipeline_succeeds: s.onlyAllowMergeIfPipelineSucceeds,
    allow_merge_on_skipped_pipeline: s.allowMergeOnSkippedPipeline,
    request_access_enabled: s.requestAccessEnabled,
    only_allow_merge_if_all_discussions_are_resolved: s.onlyAllowMergeIfAllDiscussionsAreResolved,
    remove_source_branch_after_merge: s.removeSourceBranchAfterMerge,
    printing_merge_request_link_enabled: s.printingMergeRequestLinkEnabled,
    merge_method: s.mergeMethod,
    squash_option: s.squashOption,
    enforce_auth_checks_on_uploads: s.enforceAuthChecksOnUploads,
    suggestion_commit_message: s.suggestionCommitMessage || null,
    merge_commit_template: s.mergeCommitTemplate || null,
    squash_commit_template: s.squashCommitTemplate || null,
    issue_branch_template: s.issueBranchTemplate || null,
    warn_about_potentially_unwanted_characters: s.warnAboutPotentiallyUnwantedCharacters,
    autoclose_referenced_issues: s.autocloseReferencedIssues,
    max_artifacts_size: null,
    external_authorization_classification_label: s.externalAuthorizationClassificationLabel || null,
    requirements_enabled: enabled(s.requirementsAccessLevel),
    requirements_access_level: s.requirementsAccessLevel,
    security_and_compliance_enabled: enabled(s.securityAndComplianceAccessLevel),
    compliance_frameworks: [],
  };
}

/** ProjectWithAccess: the Project entity and the caller's permissions. */
export function projectWithAccess(p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) {
  return {
    ...projectEntity(p, urls, viewer),
    permissions: {
      project_access: p.callerAccessLevel > 0 ? { access_level: p.callerAccessLevel, notification_level: 3 } : null,
      group_access: null,
    },
  };
}

/** What GET /projects/:id returns: ProjectWithAccess when signed in, ProjectDetails for anonymous callers. */
export function projectForViewer(p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) {
  return viewer.authenticated ? projectWithAccess(p, urls, viewer) : basicProjectDetails(p, urls, viewer);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
