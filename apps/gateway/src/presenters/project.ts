import { projectsV1 } from '@glp/proto';
import type { UrlBuilder } from './urls';
import { projectAvatarUrl } from './upload';

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
  /** `with_custom_attributes` asked for by an administrator: show `custom_attributes` (filled by the service). */
  customAttributes?: boolean;
  /** GET /projects/:id with `license=true` (listings never pass it): show `license_url` and `license`. */
  license?: boolean;
}

/**
 * What a project's presentation depends on besides the project: the entity (`entity`: the presenter used), every field
 * of the viewer and the external URL; with the project's id, what its JSON is found by in the presentation cache
 * (presented-json-cache.ts), which answers only the same project bytes. A Viewer field added above must be added here.
 */
export function presentationVariant(entity: string, viewer: Viewer, urls: UrlBuilder): string {
  const flags = [viewer.authenticated, viewer.admin, viewer.customAttributes ?? false, viewer.license ?? false].map(Number).join('');
  return `${entity} ${flags} ${urls.base}`;
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

/** GitLab's project entities, each a superset of the one before (`lib/api/entities/project*.rb`). */
export type ProjectShape = 'basic' | 'details' | 'entity' | 'with_access';

/**
 * ProjectIdentity + BasicProjectDetails (`basic`), ProjectDetails (`details`: and `forked_from_project`), the Project entity (`entity`), ProjectWithAccess
 * (`with_access`: and the caller's permissions), as ONE object literal whose absent fields are `undefined`
 * (JSON.stringify omits them), like Grape's `expose ..., if:`. Not built by spreading one entity into the next:
 * V8 builds a large literal that starts with a spread property by property on a slow path, ~200x slower
 * (0.5 ms per project), which was the largest cost of GET /projects/:id.
 */
export function presentProject(p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer, shape: ProjectShape) {
  const full = shape === 'entity' || shape === 'with_access';
  const ns = p.namespace;
  const pwn = `${ns?.fullPath ?? ''}/${p.path}`;
  const code = canReadCode(p, viewer);
  const s = p.settings ?? NO_SETTINGS;
  const maintainer = full && (viewer.admin || p.callerAccessLevel >= MAINTAINER);
  const self = urls.api(`projects/${p.id}`);
  const visibility = visibilityName(p.visibility);
  const issues = enabled(s.issuesAccessLevel);
  const mrs = enabled(s.mergeRequestsAccessLevel);
  const forkedFrom = shape !== 'basic' && p.forkedFromProject ? forkSourceDetails(p.forkedFromProject, urls, viewer) : undefined;
  return {
    id: p.id,
    description: p.description ?? null,
    name: p.name,
    name_with_namespace: `${p.owner?.name || ns?.name || ''} / ${p.name}`,
    path: p.path,
    path_with_namespace: pwn,
    created_at: iso(p.createdAt),
    default_branch: code ? p.defaultBranch || INSTANCE_DEFAULT_BRANCH : undefined,
    tag_list: p.topics,
    topics: p.topics,
    ssh_url_to_repo: urls.sshRepo(pwn),
    http_url_to_repo: urls.web(`${pwn}.git`),
    web_url: urls.web(pwn),
    readme_url: code ? null : undefined,
    forks_count: code ? p.forksCount : undefined,
    // No repository files exist yet, so no license is detected: GitLab shows both as null when asked (`if: :license`).
    license_url: viewer.license ? null : undefined,
    license: viewer.license ? null : undefined,
    avatar_url: projectAvatarUrl(p.id, s.avatar, urls.web),
    star_count: p.starCount,
    last_activity_at: iso(p.lastActivityAt),
    namespace: namespaceEntity(p, urls),
    custom_attributes: viewer.customAttributes ? p.customAttributes.map((a) => ({ key: a.key, value: a.value })) : undefined,
    repository_storage: viewer.admin ? p.repositoryStorage : undefined,
    // ProjectDetails: the source of a fork, when the caller may read it (the service leaves it out otherwise).
    forked_from_project: forkedFrom,
    container_registry_image_prefix: full ? `registry.${urls.host}/${p.namespace?.fullPath ?? ''}/${p.path}`.toLowerCase() : undefined,
    _links: !full ? undefined : {
      self,
      issues: issues ? `${self}/issues` : undefined,
      merge_requests: mrs ? `${self}/merge_requests` : undefined,
      repo_branches: `${self}/repository/branches`,
      labels: `${self}/labels`,
      events: `${self}/events`,
      members: `${self}/members`,
      cluster_agents: `${self}/cluster_agents`,
    },
    packages_enabled: full ? s.packagesEnabled ?? true : undefined,
    empty_repo: full ? p.emptyRepo : undefined,
    archived: full ? p.archived : undefined,
    visibility: full ? visibility : undefined,
    owner: full && p.owner ? {
      id: p.owner.id, username: p.owner.username, public_email: null, name: p.owner.name, state: p.owner.state, locked: false,
      avatar_url: p.owner.avatarUrl || null, web_url: urls.web(p.owner.username),
    } : undefined,
    resolve_outdated_diff_discussions: full ? s.resolveOutdatedDiffDiscussions ?? false : undefined,
    container_expiration_policy: !full ? undefined : {
      cadence: s.containerExpirationPolicyCadence ?? '1d',
      enabled: s.containerExpirationPolicyEnabled ?? false,
      keep_n: s.containerExpirationPolicyKeepN || null,
      older_than: s.containerExpirationPolicyOlderThan || null,
      name_regex: s.containerExpirationPolicyNameRegex || null,
      name_regex_keep: s.containerExpirationPolicyNameRegexKeep || null,
      next_run_at: s.containerExpirationPolicyNextRunAt || null,
    },
    repository_object_format: full ? s.repositoryObjectFormat ?? 'sha1' : undefined,
    issues_enabled: full ? issues : undefined,
    merge_requests_enabled: full ? mrs : undefined,
    wiki_enabled: full ? enabled(s.wikiAccessLevel) : undefined,
    jobs_enabled: full ? enabled(s.buildsAccessLevel) : undefined,
    snippets_enabled: full ? enabled(s.snippetsAccessLevel) : undefined,
    container_registry_enabled: full ? enabled(s.containerRegistryAccessLevel) : undefined,
    service_desk_enabled: full ? s.serviceDeskEnabled ?? false : undefined,
    service_desk_address: full ? null : undefined,
    can_create_merge_request_in: full ? p.callerAccessLevel >= 30 || viewer.admin : undefined,
    issues_access_level: full ? s.issuesAccessLevel : undefined,
    repository_access_level: full ? s.repositoryAccessLevel : undefined,
    merge_requests_access_level: full ? s.mergeRequestsAccessLevel : undefined,
    forking_access_level: full ? s.forkingAccessLevel : undefined,
    wiki_access_level: full ? s.wikiAccessLevel : undefined,
    builds_access_level: full ? s.buildsAccessLevel : undefined,
    snippets_access_level: full ? s.snippetsAccessLevel : undefined,
    pages_access_level: full ? s.pagesAccessLevel : undefined,
    operations_access_level: full ? s.operationsAccessLevel : undefined,
    analytics_access_level: full ? s.analyticsAccessLevel : undefined,
    container_registry_access_level: full ? s.containerRegistryAccessLevel : undefined,
    security_and_compliance_access_level: full ? s.securityAndComplianceAccessLevel : undefined,
    releases_access_level: full ? s.releasesAccessLevel : undefined,
    environments_access_level: full ? s.environmentsAccessLevel : undefined,
    feature_flags_access_level: full ? s.featureFlagsAccessLevel : undefined,
    infrastructure_access_level: full ? s.infrastructureAccessLevel : undefined,
    monitor_access_level: full ? s.monitorAccessLevel : undefined,
    model_experiments_access_level: full ? s.modelExperimentsAccessLevel : undefined,
    model_registry_access_level: full ? s.modelRegistryAccessLevel : undefined,
    emails_disabled: full ? !(s.emailsEnabled ?? true) : undefined,
    emails_enabled: full ? s.emailsEnabled ?? true : undefined,
    shared_runners_enabled: full ? s.sharedRunnersEnabled ?? true : undefined,
    lfs_enabled: full ? s.lfsEnabled ?? true : undefined,
    creator_id: full ? p.creatorId : undefined,
    // Forks only: whether merge requests target the fork itself by default (false: the upstream project).
    mr_default_target_self: full && p.forked ? s.mrDefaultTargetSelf ?? false : undefined,
    // admin_project only (the service leaves them empty for others): the source with its credentials masked.
    import_url: maintainer ? p.importUrl || null : undefined,
    import_type: maintainer ? p.importType || null : undefined,
    // EE's pull mirror block: `mirror` always, the rest only for a mirror.
    mirror: full ? p.mirror?.mirror ?? false : undefined,
    mirror_user_id: full && p.mirror?.mirror ? p.mirror.mirrorUserId ?? null : undefined,
    mirror_trigger_builds: full && p.mirror?.mirror ? p.mirror.mirrorTriggerBuilds ?? false : undefined,
    only_mirror_protected_branches: full && p.mirror?.mirror ? p.mirror.onlyMirrorProtectedBranches ?? false : undefined,
    mirror_overwrites_diverged_branches: full && p.mirror?.mirror ? p.mirror.mirrorOverwritesDivergedBranches ?? false : undefined,
    import_status: full ? p.importStatus || 'none' : undefined,
    import_error: maintainer ? p.importError || null : undefined,
    open_issues_count: full && issues ? p.openIssuesCount : undefined,
    description_html: full ? (p.description ? `<p data-sourcepos="1:1-1:${p.description.length}" dir="auto">${escapeHtml(p.description)}</p>` : '') : undefined,
    updated_at: full ? iso(p.updatedAt) : undefined,
    ci_default_git_depth: maintainer ? s.ciDefaultGitDepth : undefined,
    ci_delete_pipelines_in_seconds: maintainer ? null : undefined,
    ci_forward_deployment_enabled: maintainer ? s.ciForwardDeploymentEnabled : undefined,
    ci_forward_deployment_rollback_allowed: maintainer ? true : undefined,
    ci_job_token_scope_enabled: maintainer ? false : undefined,
    ci_separated_caches: maintainer ? true : undefined,
    ci_allow_fork_pipelines_to_run_in_parent_project: maintainer ? true : undefined,
    ci_id_token_sub_claim_components: maintainer ? ['project_path', 'ref_type', 'ref'] : undefined,
    build_git_strategy: maintainer ? s.buildGitStrategy : undefined,
    keep_latest_artifact: maintainer ? s.keepLatestArtifact : undefined,
    restrict_user_defined_variables: maintainer ? s.restrictUserDefinedVariables : undefined,
    ci_pipeline_variables_minimum_override_role: maintainer ? 'developer' : undefined,
    // Only on the answers GitLab renders with `user_can_admin_project` (the service fills it there for Maintainers+).
    runners_token: maintainer && p.runnersToken ? p.runnersToken : undefined,
    runner_token_expiration_interval: maintainer ? null : undefined,
    group_runners_enabled: maintainer ? s.groupRunnersEnabled : undefined,
    auto_cancel_pending_pipelines: maintainer ? s.autoCancelPendingPipelines : undefined,
    build_timeout: maintainer ? s.buildTimeout : undefined,
    auto_devops_enabled: maintainer ? s.autoDevopsEnabled : undefined,
    auto_devops_deploy_strategy: maintainer ? s.autoDevopsDeployStrategy : undefined,
    ci_push_repository_for_job_token_allowed: maintainer ? false : undefined,
    ci_config_path: full ? s.ciConfigPath || null : undefined,
    // In the spec's full representation (and the transfer response); GitLab 18's entity dropped it.
    build_coverage_regex: full ? s.buildCoverageRegex || null : undefined,
    public_jobs: full ? s.publicJobs : undefined,
    shared_with_groups: full
      ? p.sharedWithGroups.map((g) => ({
          group_id: g.groupId, group_name: g.groupName, group_full_path: g.groupFullPath, group_access_level: g.groupAccessLevel, expires_at: g.expiresAt || null,
        }))
      : undefined,
    only_allow_merge_if_pipeline_succeeds: full ? s.onlyAllowMergeIfPipelineSucceeds : undefined,
    allow_merge_on_skipped_pipeline: full ? s.allowMergeOnSkippedPipeline : undefined,
    request_access_enabled: full ? s.requestAccessEnabled : undefined,
    only_allow_merge_if_all_discussions_are_resolved: full ? s.onlyAllowMergeIfAllDiscussionsAreResolved : undefined,
    remove_source_branch_after_merge: full ? s.removeSourceBranchAfterMerge : undefined,
    printing_merge_request_link_enabled: full ? s.printingMergeRequestLinkEnabled : undefined,
    merge_method: full ? s.mergeMethod : undefined,
    squash_option: full ? s.squashOption : undefined,
    enforce_auth_checks_on_uploads: full ? s.enforceAuthChecksOnUploads : undefined,
    suggestion_commit_message: full ? s.suggestionCommitMessage || null : undefined,
    merge_commit_template: full ? s.mergeCommitTemplate || null : undefined,
    squash_commit_template: full ? s.squashCommitTemplate || null : undefined,
    issue_branch_template: full ? s.issueBranchTemplate || null : undefined,
    // Asked (`statistics=true`) and allowed (Reporter+, administrators): the service fills it only then.
    statistics: full && p.statistics ? {
      commit_count: p.statistics.commitCount,
      storage_size: p.statistics.storageSize,
      repository_size: p.statistics.repositorySize,
      wiki_size: p.statistics.wikiSize,
      lfs_objects_size: p.statistics.lfsObjectsSize,
      job_artifacts_size: p.statistics.jobArtifactsSize,
      pipeline_artifacts_size: p.statistics.pipelineArtifactsSize,
      packages_size: p.statistics.packagesSize,
      snippets_size: p.statistics.snippetsSize,
      uploads_size: p.statistics.uploadsSize,
      container_registry_size: p.statistics.containerRegistrySize,
    } : undefined,
    warn_about_potentially_unwanted_characters: full ? s.warnAboutPotentiallyUnwantedCharacters : undefined,
    autoclose_referenced_issues: full ? s.autocloseReferencedIssues : undefined,
    max_artifacts_size: full ? null : undefined,
    external_authorization_classification_label: full ? s.externalAuthorizationClassificationLabel || null : undefined,
    requirements_enabled: full ? enabled(s.requirementsAccessLevel) : undefined,
    requirements_access_level: full ? s.requirementsAccessLevel : undefined,
    security_and_compliance_enabled: full ? enabled(s.securityAndComplianceAccessLevel) : undefined,
    compliance_frameworks: full ? [] : undefined,
    // GitLab EE's entity (`ee/lib/ee/api/entities/project.rb`): approvals, default templates, merge trains.
    approvals_before_merge: full ? s.approvalsBeforeMerge ?? 0 : undefined,
    issues_template: full ? s.issuesTemplate || null : undefined,
    merge_requests_template: full ? s.mergeRequestsTemplate || null : undefined,
    merge_pipelines_enabled: full ? s.mergePipelinesEnabled ?? false : undefined,
    merge_trains_enabled: full ? s.mergeTrainsEnabled ?? false : undefined,
    // Delayed deletion: the day it goes (marked_for_deletion_at is the deprecated twin, kept in sync).
    marked_for_deletion_at: full ? p.markedForDeletionOn || null : undefined,
    marked_for_deletion_on: full ? p.markedForDeletionOn || null : undefined,
    permissions: shape !== 'with_access' ? undefined : {
      // The caller's project membership, and their highest membership in the namespace's group or its ancestors.
      project_access: p.projectAccessLevel > 0 ? { access_level: p.projectAccessLevel, notification_level: 3 } : null,
      group_access: p.groupAccessLevel > 0 ? { access_level: p.groupAccessLevel, notification_level: 3 } : null,
    },
  };
}

/** A fork's `forked_from_project` (BasicProjectDetails). Typed apart: the entity would otherwise infer its type from itself. */
const forkSourceDetails: (p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) => object = (p, urls, viewer) =>
  // The service sends the source's identity and counts only: no custom attributes of its own (license, like GitLab's
  // options, passes through).
  presentProject(p, urls, { authenticated: viewer.authenticated, admin: viewer.admin, license: viewer.license }, 'basic');

/** ProjectIdentity + BasicProjectDetails (listings with `simple=true`, anonymous callers). */
export const basicProjectDetails = (p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) => presentProject(p, urls, viewer, 'basic');
/** The full Project entity (create, update). */
export const projectEntity = (p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) => presentProject(p, urls, viewer, 'entity');
/** ProjectWithAccess: the Project entity and the caller's permissions. */
export const projectWithAccess = (p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) => presentProject(p, urls, viewer, 'with_access');

/** What GET /projects/:id returns: ProjectWithAccess when signed in, ProjectDetails for anonymous callers. */
export function projectForViewer(p: projectsV1.Project, urls: UrlBuilder, viewer: Viewer) {
  return presentProject(p, urls, viewer, viewer.authenticated ? 'with_access' : 'details');
}

const NO_SETTINGS = projectsV1.ProjectSettings.fromPartial({});
const enabled = (level?: string) => level !== undefined && level !== 'disabled';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
