import type { projectsV1 } from '@glp/proto';
import type { FieldErrors } from '@glp/service-kit';
import type { VisibilityLevel } from './visibility';

export type Settings = projectsV1.ProjectSettings;
type Key = keyof Settings;

const FEATURE_LEVELS = ['disabled', 'private', 'enabled'] as const;
const FEATURE_KEYS = [
  'issuesAccessLevel', 'repositoryAccessLevel', 'mergeRequestsAccessLevel', 'forkingAccessLevel', 'wikiAccessLevel',
  'buildsAccessLevel', 'snippetsAccessLevel', 'operationsAccessLevel', 'analyticsAccessLevel',
  'containerRegistryAccessLevel', 'securityAndComplianceAccessLevel', 'environmentsAccessLevel',
  'featureFlagsAccessLevel', 'infrastructureAccessLevel', 'releasesAccessLevel', 'monitorAccessLevel',
  'requirementsAccessLevel',
] as const satisfies readonly Key[];

/** Allowed values of the string settings that are enumerations. */
export const SETTING_ENUMS: Partial<Record<Key, readonly string[]>> = {
  ...Object.fromEntries(FEATURE_KEYS.map((k) => [k, FEATURE_LEVELS])),
  pagesAccessLevel: ['disabled', 'private', 'enabled', 'public'],
  mergeMethod: ['merge', 'rebase_merge', 'ff'],
  squashOption: ['never', 'always', 'default_on', 'default_off'],
  buildGitStrategy: ['fetch', 'clone'],
  autoCancelPendingPipelines: ['enabled', 'disabled'],
  autoDevopsDeployStrategy: ['continuous', 'manual', 'timed_incremental'],
  repositoryObjectFormat: ['sha1', 'sha256'],
};

/** GitLab's model defaults for a project of this visibility (built once per visibility, below). */
function buildDefaults(visibility: VisibilityLevel): Required<Settings> {
  const features = Object.fromEntries(FEATURE_KEYS.map((k) => [k, 'enabled'])) as Record<(typeof FEATURE_KEYS)[number], string>;
  return {
    ...features,
    securityAndComplianceAccessLevel: 'private',
    pagesAccessLevel: visibility === 'public' ? 'enabled' : 'private',
    mergeMethod: 'merge',
    squashOption: 'default_off',
    requestAccessEnabled: true,
    lfsEnabled: true,
    sharedRunnersEnabled: true,
    groupRunnersEnabled: true,
    packagesEnabled: true,
    emailsEnabled: true,
    publicJobs: true,
    onlyAllowMergeIfPipelineSucceeds: false,
    allowMergeOnSkippedPipeline: false,
    onlyAllowMergeIfAllDiscussionsAreResolved: false,
    removeSourceBranchAfterMerge: true,
    printingMergeRequestLinkEnabled: true,
    resolveOutdatedDiffDiscussions: false,
    autocloseReferencedIssues: true,
    buildTimeout: 3600,
    ciConfigPath: '',
    ciDefaultGitDepth: 20,
    buildGitStrategy: 'fetch',
    autoCancelPendingPipelines: 'enabled',
    autoDevopsEnabled: false,
    autoDevopsDeployStrategy: 'continuous',
    keepLatestArtifact: true,
    restrictUserDefinedVariables: false,
    enforceAuthChecksOnUploads: true,
    warnAboutPotentiallyUnwantedCharacters: true,
    suggestionCommitMessage: '',
    mergeCommitTemplate: '',
    squashCommitTemplate: '',
    issueBranchTemplate: '',
    serviceDeskEnabled: false,
    ciForwardDeploymentEnabled: true,
    externalAuthorizationClassificationLabel: '',
    repositoryObjectFormat: 'sha1',
    buildCoverageRegex: '',
    mrDefaultTargetSelf: false,
  };
}

const DEFAULTS: Readonly<Record<VisibilityLevel, Readonly<Required<Settings>>>> = Object.freeze({
  private: Object.freeze(buildDefaults('private')),
  internal: Object.freeze(buildDefaults('internal')),
  public: Object.freeze(buildDefaults('public')),
});

/**
 * What a new project gets for every setting the client did not send (GitLab's model defaults). Built once per
 * visibility: a literal of ~55 keys after a spread is built key by key on V8's slow path (it was ~8% of the CPU
 * of a GetProject call).
 */
export function defaultSettings(visibility: VisibilityLevel): Required<Settings> {
  return { ...DEFAULTS[visibility] };
}

/** Only the keys a client actually set (undefined dropped), for storage. */
export function explicitSettings(s: Settings | undefined): Settings {
  return Object.fromEntries(Object.entries(s ?? {}).filter(([, v]) => v !== undefined)) as Settings;
}

export function effectiveSettings(stored: Settings, visibility: VisibilityLevel): Required<Settings> {
  const defaults = DEFAULTS[visibility];
  const out = { ...defaults };
  for (const key in stored) {
    const v = stored[key as Key];
    // Known settings only: a stored key outside the schema (or "__proto__") is never copied.
    if (v !== undefined && Object.hasOwn(defaults, key)) (out as Record<string, unknown>)[key] = v;
  }
  return out;
}

/** The API attribute name of a setting: `mergeMethod` → `merge_method`. */
export const settingName = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Field errors for settings values (enumerations, feature-level consistency, numeric ranges). */
export function settingsErrors(s: Settings): FieldErrors {
  const errors: FieldErrors = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  for (const [key, allowed] of Object.entries(SETTING_ENUMS) as [Key, readonly string[]][]) {
    const v = s[key];
    if (v !== undefined && !allowed.includes(String(v))) add(settingName(key), 'is not included in the list');
  }
  const rank = (v?: string) => (v === undefined ? undefined : FEATURE_LEVELS.indexOf(v as (typeof FEATURE_LEVELS)[number]));
  const repo = rank(s.repositoryAccessLevel) ?? 2;
  for (const k of ['mergeRequestsAccessLevel', 'buildsAccessLevel'] as const) {
    const r = rank(s[k]);
    if (r !== undefined && r >= 0 && repo >= 0 && r > repo) add(`project_feature.${settingName(k)}`, 'cannot have higher visibility level than repository access level');
  }
  if (s.buildTimeout !== undefined && (s.buildTimeout < 600 || s.buildTimeout > 2592000)) {
    add('build_timeout', s.buildTimeout < 600 ? 'is too short (minimum is 10 minutes)' : 'is too long (maximum is one month)');
  }
  if (s.ciDefaultGitDepth !== undefined && (s.ciDefaultGitDepth < 0 || s.ciDefaultGitDepth > 1000)) {
    add('ci_default_git_depth', 'must be greater than or equal to 0 and less than or equal to 1000');
  }
  if (s.ciConfigPath !== undefined && (s.ciConfigPath.length > 255 || s.ciConfigPath.startsWith('/') || s.ciConfigPath.includes('..'))) {
    add('ci_config_path', s.ciConfigPath.length > 255 ? 'is too long (maximum is 255 characters)' : 'cannot start with "/" or contain ".."');
  }
  return errors;
}
