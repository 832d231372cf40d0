import { defineParams, p } from '../http/params';
import { HttpError } from '../http/errors';
import { route, type RouteDef } from '../http/route';
import { projectEntity } from '../presenters/project';
import { requireProject } from './project-member-routes';
import { importParamFields, mirrorSettingsOf, projectAttributeParams, validateImportUrl, visibilityToProto } from './project-routes';
import { settingsFromParams } from './project-settings-params';
import { applyAvatar, avatarFileOf } from './project-avatar';

const OWNER = 50;

/**
 * Params GitLab's `put ':id'` declares (so its validation accepts them, with its types and values) that the projects
 * service does not keep: the gRPC contract (`UpdateProjectRequest`, `ProjectSettings`) has no field for them. They are
 * validated like GitLab and count for `at_least_one_of`, but a valid value changes nothing and the answer shows the
 * current value. CE: `optional_project_params_ce`, `optional_update_params_ce`; EE: `optional_project_params_ee`,
 * `optional_update_params_ee` (`lib/api/helpers/projects_helpers.rb`, `ee/lib/ee/api/helpers/projects_helpers.rb`).
 */
const NOT_KEPT = {
  // CE project attributes
  // (model_experiments_access_level, model_registry_access_level, show_default_award_emojis and
  // container_expiration_policy_attributes are kept: settings params, project-settings-params.ts.)
  package_registry_access_level: p.enumOf(['disabled', 'private', 'enabled', 'public']),
  show_diff_preview_in_email: p.boolean(),
  resource_group_default_process_mode: p.enumOf(['unordered', 'oldest_first', 'newest_first', 'newest_ready_first']),
  /** Administrators only: GitLab schedules a repository storage move. */
  repository_storage: p.string(),
  merge_request_title_regex: p.string(),
  merge_request_title_regex_description: p.string(),
  // CE edit-only CI settings
  ci_forward_deployment_rollback_allowed: p.boolean(),
  ci_allow_fork_pipelines_to_run_in_parent_project: p.boolean(),
  ci_separated_caches: p.boolean(),
  ci_pipeline_variables_minimum_override_role: p.enumOf(['no_one_allowed', 'developer', 'maintainer', 'owner']),
  ci_push_repository_for_job_token_allowed: p.boolean(),
  ci_id_token_sub_claim_components: p.arrayOf(p.string()),
  /** Owner only (GitLab's `destroy_pipeline`): a Maintainer sending it gets 403. */
  ci_delete_pipelines_in_seconds: p.integer(),
  /** Administrators only (silently dropped for others). */
  max_artifacts_size: p.integer(),
  // EE (higher tier)
  only_allow_merge_if_all_status_checks_passed: p.boolean(),
  prevent_merge_without_jira_issue: p.boolean(),
  auto_duo_code_review_enabled: p.boolean(),
  spp_repository_pipeline_access: p.boolean(),
  allow_pipeline_trigger_approve_deployment: p.boolean(),
  fallback_approvals_required: p.integer(),
  merge_trains_skip_train_allowed: p.boolean(),
  ci_restrict_pipeline_cancellation_role: p.string(),
  web_based_commit_signing_enabled: p.boolean(),
};

const editProjectParams = defineParams({
  id: p.string().required(),
  ...projectAttributeParams,
  // import_url and EE's pull mirror params: kept (projects) and acted on (repo-admin's mirror).
  ...importParamFields,
  ...NOT_KEPT,
})
  .mutuallyExclusive('only_mirror_protected_branches', 'mirror_branch_regex')
  // GitLab's `update_params_at_least_one_of`, CE then EE's `super.concat [...]`, in its order; the three names both
  // lists carry appear twice in GitLab's message too (Grape joins the keys as given).
  .atLeastOneOf(
    'allow_merge_on_skipped_pipeline', 'analytics_access_level', 'autoclose_referenced_issues', 'auto_devops_enabled',
    'auto_devops_deploy_strategy', 'auto_cancel_pending_pipelines', 'build_git_strategy', 'build_timeout', 'builds_access_level',
    'ci_config_path', 'ci_default_git_depth', 'ci_allow_fork_pipelines_to_run_in_parent_project', 'ci_id_token_sub_claim_components',
    'ci_forward_deployment_enabled', 'ci_forward_deployment_rollback_allowed', 'ci_separated_caches', 'container_registry_access_level',
    'container_expiration_policy_attributes', 'default_branch', 'description', 'emails_disabled', 'emails_enabled',
    'forking_access_level', 'issues_access_level', 'lfs_enabled', 'merge_pipelines_enabled', 'merge_requests_access_level',
    'merge_requests_template', 'merge_trains_enabled', 'merge_method', 'merge_request_title_regex',
    'merge_request_title_regex_description', 'name', 'only_allow_merge_if_all_discussions_are_resolved',
    'only_allow_merge_if_pipeline_succeeds', 'package_registry_access_level', 'pages_access_level', 'path',
    'printing_merge_request_link_enabled', 'public_builds', 'public_jobs', 'remove_source_branch_after_merge',
    'repository_access_level', 'request_access_enabled', 'resolve_outdated_diff_discussions', 'restrict_user_defined_variables',
    'show_diff_preview_in_email', 'security_and_compliance_access_level', 'squash_option', 'shared_runners_enabled',
    'group_runners_enabled', 'resource_group_default_process_mode', 'snippets_access_level', 'tag_list', 'topics', 'visibility',
    'wiki_access_level', 'avatar', 'suggestion_commit_message', 'merge_commit_template', 'squash_commit_template',
    'issue_branch_template', 'repository_storage', 'packages_enabled', 'service_desk_enabled', 'keep_latest_artifact',
    'mr_default_target_self', 'enforce_auth_checks_on_uploads', 'releases_access_level', 'environments_access_level',
    'feature_flags_access_level', 'infrastructure_access_level', 'monitor_access_level', 'model_experiments_access_level',
    'model_registry_access_level', 'warn_about_potentially_unwanted_characters', 'ci_pipeline_variables_minimum_override_role',
    'ci_push_repository_for_job_token_allowed', 'ci_delete_pipelines_in_seconds', 'max_artifacts_size', 'issues_enabled',
    'jobs_enabled', 'merge_requests_enabled', 'wiki_enabled', 'snippets_enabled', 'container_registry_enabled',
    'auto_duo_code_review_enabled', 'allow_pipeline_trigger_approve_deployment', 'only_allow_merge_if_all_status_checks_passed',
    'approvals_before_merge', 'external_authorization_classification_label', 'fallback_approvals_required', 'import_url',
    'issues_template', 'mirror', 'merge_requests_template', 'merge_pipelines_enabled', 'merge_trains_enabled',
    'merge_trains_skip_train_allowed', 'requirements_access_level', 'prevent_merge_without_jira_issue',
    'ci_restrict_pipeline_cancellation_role', 'web_based_commit_signing_enabled', 'spp_repository_pipeline_access',
  );

/**
 * PUT /projects/:id (`lib/api/projects.rb` `put ':id'`): a partial edit, 200 with the `Project` entity (as create,
 * star and archive answer; GET's ProjectWithAccess adds `permissions`). The projects service decides who may change
 * what (Maintainer; Owner for a visibility; 404 for a project the caller cannot read) and validates (400
 * `{"message":{...}}`). `topics` replace the topics; `tag_list` (deprecated) only when `topics` is absent.
 */
export const projectEditRoutes: RouteDef[] = [
  route({
    method: 'PUT', path: '/projects/:id', access: 'user', params: editProjectParams,
    handler: async ({ params, actor, services, urls }) => {
      const project = requireProject(params.id);
      if (params.ci_delete_pipelines_in_seconds !== undefined && !actor.admin) {
        // Owner-only in GitLab though the service does not keep it: refuse a non-Owner as GitLab does (a hidden project stays 404).
        const { project: seen } = await services.projects.getProject({ selector: project.selector, withCustomAttributes: false, statistics: false });
        if ((seen?.callerAccessLevel ?? 0) < OWNER) throw HttpError.forbidden();
      }
      await validateImportUrl(services, params.import_url); // GitLab's validate_git_import_url!: 422
      const topics = params.topics ?? params.tag_list;
      const { project: updated } = await services.projects.updateProject({
        project,
        // null clears: a nil name or path is "can't be blank", a nil description empties it
        name: params.name === null ? '' : params.name,
        path: params.path === null ? '' : params.path,
        description: params.description === null ? '' : params.description,
        visibility: visibilityToProto(params.visibility),
        defaultBranch: params.default_branch ?? undefined,
        topics: topics ?? [],
        setTopics: topics !== undefined,
        settings: settingsFromParams(params),
        avatar: avatarFileOf(params.avatar),
        importUrl: params.import_url ?? undefined,
        mirror: mirrorSettingsOf(params, actor.admin),
      });
      // A new avatar (validated with the edit) is stored and recorded now; `avatar=` removes it.
      const result = await applyAvatar(services, updated!, params.avatar);
      return { body: projectEntity(result, urls, { authenticated: true, admin: actor.admin }) };
    },
  }),
];
