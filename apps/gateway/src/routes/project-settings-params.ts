import type { projectsV1 } from '@glp/proto';
import { HttpError } from '../http/errors';
import { coerceBoolean, coerceInteger, coerceString, INVALID } from '../http/param-coercion';
import { p, type ParamFields } from '../http/params';

const FEATURE = ['disabled', 'private', 'enabled'] as const;

/** Settings a client may send on create and edit: REST name → proto field and param definition. */
const SETTINGS = {
  issues_access_level: ['issuesAccessLevel', p.enumOf(FEATURE)],
  repository_access_level: ['repositoryAccessLevel', p.enumOf(FEATURE)],
  merge_requests_access_level: ['mergeRequestsAccessLevel', p.enumOf(FEATURE)],
  forking_access_level: ['forkingAccessLevel', p.enumOf(FEATURE)],
  wiki_access_level: ['wikiAccessLevel', p.enumOf(FEATURE)],
  builds_access_level: ['buildsAccessLevel', p.enumOf(FEATURE)],
  snippets_access_level: ['snippetsAccessLevel', p.enumOf(FEATURE)],
  pages_access_level: ['pagesAccessLevel', p.enumOf(['disabled', 'private', 'enabled', 'public'])],
  operations_access_level: ['operationsAccessLevel', p.enumOf(FEATURE)],
  analytics_access_level: ['analyticsAccessLevel', p.enumOf(FEATURE)],
  container_registry_access_level: ['containerRegistryAccessLevel', p.enumOf(FEATURE)],
  security_and_compliance_access_level: ['securityAndComplianceAccessLevel', p.enumOf(FEATURE)],
  environments_access_level: ['environmentsAccessLevel', p.enumOf(FEATURE)],
  feature_flags_access_level: ['featureFlagsAccessLevel', p.enumOf(FEATURE)],
  infrastructure_access_level: ['infrastructureAccessLevel', p.enumOf(FEATURE)],
  releases_access_level: ['releasesAccessLevel', p.enumOf(FEATURE)],
  monitor_access_level: ['monitorAccessLevel', p.enumOf(FEATURE)],
  requirements_access_level: ['requirementsAccessLevel', p.enumOf(FEATURE)],
  merge_method: ['mergeMethod', p.enumOf(['merge', 'rebase_merge', 'ff'])],
  squash_option: ['squashOption', p.enumOf(['never', 'always', 'default_on', 'default_off'])],
  request_access_enabled: ['requestAccessEnabled', p.boolean()],
  lfs_enabled: ['lfsEnabled', p.boolean()],
  shared_runners_enabled: ['sharedRunnersEnabled', p.boolean()],
  group_runners_enabled: ['groupRunnersEnabled', p.boolean()],
  packages_enabled: ['packagesEnabled', p.boolean()],
  emails_enabled: ['emailsEnabled', p.boolean()],
  public_jobs: ['publicJobs', p.boolean()],
  only_allow_merge_if_pipeline_succeeds: ['onlyAllowMergeIfPipelineSucceeds', p.boolean()],
  allow_merge_on_skipped_pipeline: ['allowMergeOnSkippedPipeline', p.boolean()],
  only_allow_merge_if_all_discussions_are_resolved: ['onlyAllowMergeIfAllDiscussionsAreResolved', p.boolean()],
  remove_source_branch_after_merge: ['removeSourceBranchAfterMerge', p.boolean()],
  printing_merge_request_link_enabled: ['printingMergeRequestLinkEnabled', p.boolean()],
  resolve_outdated_diff_discussions: ['resolveOutdatedDiffDiscussions', p.boolean()],
  autoclose_referenced_issues: ['autocloseReferencedIssues', p.boolean()],
  build_timeout: ['buildTimeout', p.int32()],
  ci_config_path: ['ciConfigPath', p.string()],
  ci_default_git_depth: ['ciDefaultGitDepth', p.int32()],
  build_git_strategy: ['buildGitStrategy', p.enumOf(['fetch', 'clone'])],
  auto_cancel_pending_pipelines: ['autoCancelPendingPipelines', p.enumOf(['enabled', 'disabled'])],
  auto_devops_enabled: ['autoDevopsEnabled', p.boolean()],
  auto_devops_deploy_strategy: ['autoDevopsDeployStrategy', p.enumOf(['continuous', 'manual', 'timed_incremental'])],
  keep_latest_artifact: ['keepLatestArtifact', p.boolean()],
  restrict_user_defined_variables: ['restrictUserDefinedVariables', p.boolean()],
  enforce_auth_checks_on_uploads: ['enforceAuthChecksOnUploads', p.boolean()],
  warn_about_potentially_unwanted_characters: ['warnAboutPotentiallyUnwantedCharacters', p.boolean()],
  suggestion_commit_message: ['suggestionCommitMessage', p.string()],
  merge_commit_template: ['mergeCommitTemplate', p.string()],
  squash_commit_template: ['squashCommitTemplate', p.string()],
  issue_branch_template: ['issueBranchTemplate', p.string()],
  service_desk_enabled: ['serviceDeskEnabled', p.boolean()],
  ci_forward_deployment_enabled: ['ciForwardDeploymentEnabled', p.boolean()],
  external_authorization_classification_label: ['externalAuthorizationClassificationLabel', p.string()],
  build_coverage_regex: ['buildCoverageRegex', p.string()],
  mr_default_target_self: ['mrDefaultTargetSelf', p.boolean()],
  model_experiments_access_level: ['modelExperimentsAccessLevel', p.enumOf(FEATURE)],
  model_registry_access_level: ['modelRegistryAccessLevel', p.enumOf(FEATURE)],
  show_default_award_emojis: ['showDefaultAwardEmojis', p.boolean()],
  // GitLab EE (higher tier), kept and shown as GitLab EE does.
  approvals_before_merge: ['approvalsBeforeMerge', p.int32().notBlank()],
  issues_template: ['issuesTemplate', p.string()],
  merge_requests_template: ['mergeRequestsTemplate', p.string()],
  merge_pipelines_enabled: ['mergePipelinesEnabled', p.boolean()],
  merge_trains_enabled: ['mergeTrainsEnabled', p.boolean()],
} as const satisfies Record<string, readonly [keyof projectsV1.ProjectSettings, ParamFields[string]]>;

/** Settings only a create takes (GitLab's `optional_create_project_params`; PUT /projects/:id does not declare them). */
const CREATE_SETTINGS = {
  repository_object_format: ['repositoryObjectFormat', p.enumOf(['sha1', 'sha256'])],
} as const satisfies Record<string, readonly [keyof projectsV1.ProjectSettings, ParamFields[string]]>;

/** Deprecated booleans GitLab still accepts, translated to access levels. */
const LEGACY_FEATURE_FLAGS = {
  issues_enabled: 'issuesAccessLevel',
  merge_requests_enabled: 'mergeRequestsAccessLevel',
  wiki_enabled: 'wikiAccessLevel',
  jobs_enabled: 'buildsAccessLevel',
  snippets_enabled: 'snippetsAccessLevel',
  container_registry_enabled: 'containerRegistryAccessLevel',
} as const;

type ParamsOf<T extends Record<string, readonly [string, ParamFields[string]]>> = { [K in keyof T]: T[K][1] };
const paramsOf = <T extends Record<string, readonly [string, ParamFields[string]]>>(table: T) =>
  Object.fromEntries(Object.entries(table).map(([k, [, param]]) => [k, param])) as ParamsOf<T>;

type SettingsParams = ParamsOf<typeof SETTINGS> & {
  [K in keyof typeof LEGACY_FEATURE_FLAGS]: ReturnType<typeof p.boolean>;
} & {
  emails_disabled: ReturnType<typeof p.boolean>; public_builds: ReturnType<typeof p.boolean>;
  container_expiration_policy_attributes: ReturnType<typeof p.hash>;
};

/** The settings params of POST /projects and PUT /projects/:id (with the deprecated aliases GitLab still takes). */
export const settingsParamFields: SettingsParams = {
  ...paramsOf(SETTINGS),
  ...(Object.fromEntries(Object.keys(LEGACY_FEATURE_FLAGS).map((k) => [k, p.boolean()])) as { [K in keyof typeof LEGACY_FEATURE_FLAGS]: ReturnType<typeof p.boolean> }),
  emails_disabled: p.boolean(),
  public_builds: p.boolean(),
  container_expiration_policy_attributes: p.hash(),
};

/** The settings params only POST /projects takes. */
export const createSettingsParamFields = paramsOf(CREATE_SETTINGS);

/**
 * The settings a request carries (only what was sent, of what its route declares), as the proto message. Deprecated
 * aliases as GitLab's `translate_params_for_compatibility`: `public_jobs` wins over `public_builds`, `emails_disabled`
 * over `emails_enabled`; an access level over its legacy `*_enabled` boolean.
 */
export function settingsFromParams(params: Record<string, unknown>): projectsV1.ProjectSettings {
  const out: Record<string, unknown> = {};
  for (const [legacy, key] of Object.entries(LEGACY_FEATURE_FLAGS)) {
    const v = params[legacy];
    if (typeof v === 'boolean') out[key] = v ? 'enabled' : 'disabled';
  }
  if (typeof params.public_builds === 'boolean') out.publicJobs = params.public_builds;
  for (const table of [SETTINGS, CREATE_SETTINGS]) {
    for (const [name, [key]] of Object.entries(table)) {
      const v = params[name];
      if (v !== undefined && v !== null) out[key] = v;
    }
  }
  if (typeof params.emails_disabled === 'boolean') out.emailsEnabled = !params.emails_disabled;
  const policy = params.container_expiration_policy_attributes;
  if (policy && typeof policy === 'object') Object.assign(out, containerPolicySettings(policy as Record<string, unknown>));
  return out as projectsV1.ProjectSettings;
}

const POLICY_PARAM = 'container_expiration_policy_attributes';
const INT32_MAX = 2 ** 31 - 1;

/**
 * `container_expiration_policy_attributes` (GitLab's `optional_container_expiration_policy_params`: cadence, keep_n,
 * older_than, name_regex, name_regex_keep as String/Integer, enabled Boolean; other keys are not declared and dropped)
 * as settings. A value of the wrong type is Grape's 400 `<param>[<key>] is invalid`; null is kept as null (empty / 0) so
 * the service's validations speak ("can't be blank"); an integer too large for any option is one that is not in the list.
 */
function containerPolicySettings(policy: Record<string, unknown>): Partial<projectsV1.ProjectSettings> {
  const invalid = (key: string) => new HttpError(400, { error: `${POLICY_PARAM}[${key}] is invalid` });
  const text = (key: string) => {
    if (!(key in policy)) return undefined;
    const v = coerceString(policy[key]);
    if (v === INVALID) throw invalid(key);
    return v ?? '';
  };
  const out: Partial<projectsV1.ProjectSettings> = {
    containerExpirationPolicyCadence: text('cadence'),
    containerExpirationPolicyOlderThan: text('older_than'),
    containerExpirationPolicyNameRegex: text('name_regex'),
    containerExpirationPolicyNameRegexKeep: text('name_regex_keep'),
  };
  if ('keep_n' in policy) {
    const n = coerceInteger(policy.keep_n);
    if (n === INVALID) throw invalid('keep_n');
    out.containerExpirationPolicyKeepN = n === null ? 0 : n > INT32_MAX || n <= 0 ? -1 : n;
  }
  if ('enabled' in policy) {
    const b = coerceBoolean(policy.enabled);
    if (b === INVALID) throw invalid('enabled');
    if (b !== null) out.containerExpirationPolicyEnabled = b;
  }
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}
