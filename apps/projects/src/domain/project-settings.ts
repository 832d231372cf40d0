import type { projectsV1 } from '@glp/proto';
import type { FieldErrors } from '@glp/service-kit';
import { untrustedRegexpError } from '@glp/untrusted-regexp';
import type { VisibilityLevel } from './visibility';

export type Settings = projectsV1.ProjectSettings;
type Key = keyof Settings;

const FEATURE_LEVELS = ['disabled', 'private', 'enabled'] as const;
const FEATURE_KEYS = [
  'issuesAccessLevel', 'repositoryAccessLevel', 'mergeRequestsAccessLevel', 'forkingAccessLevel', 'wikiAccessLevel',
  'buildsAccessLevel', 'snippetsAccessLevel', 'operationsAccessLevel', 'analyticsAccessLevel',
  'containerRegistryAccessLevel', 'securityAndComplianceAccessLevel', 'environmentsAccessLevel',
  'featureFlagsAccessLevel', 'infrastructureAccessLevel', 'releasesAccessLevel', 'monitorAccessLevel',
  'requirementsAccessLevel', 'modelExperimentsAccessLevel', 'modelRegistryAccessLevel',
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

/**
 * GitLab's container registry cleanup policy of a new project (`container_expiration_policies`, shown by
 * `API::Entities::ContainerExpirationPolicy`); keep_n 0 and empty strings stand for null. `NextRunAt` empty: the first
 * run, one cadence after the project's creation.
 */
const CONTAINER_EXPIRATION_POLICY_DEFAULTS = {
  containerExpirationPolicyCadence: '1d',
  containerExpirationPolicyEnabled: false,
  containerExpirationPolicyKeepN: 10,
  containerExpirationPolicyOlderThan: '90d',
  containerExpirationPolicyNameRegex: '.*',
  containerExpirationPolicyNameRegexKeep: '',
  containerExpirationPolicyNextRunAt: '',
} as const satisfies Partial<Record<Key, unknown>>;

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
    ...CONTAINER_EXPIRATION_POLICY_DEFAULTS,
    showDefaultAwardEmojis: true,
    approvalsBeforeMerge: 0,
    issuesTemplate: '',
    mergeRequestsTemplate: '',
    mergePipelinesEnabled: false,
    mergeTrainsEnabled: false,
    // The stored avatar ("<secret>/<file name>" in repo-admin): none.
    avatar: '',
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

/** Only the keys a client actually set (undefined dropped), for storage. `avatar` is never taken from a client's settings (SetProjectAvatar sets it). */
export function explicitSettings(s: Settings | undefined): Settings {
  return Object.fromEntries(Object.entries(s ?? {}).filter(([k, v]) => v !== undefined && k !== 'avatar')) as Settings;
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
  for (const [key, messages] of containerExpirationPolicyErrors(s)) for (const m of messages) add(`container_expiration_policy.${key}`, m);
  return errors;
}

/** `ContainerExpirationPolicy.cadence_options`, `older_than_options`, `keep_n_options` (app/models/container_expiration_policy.rb). */
export const CONTAINER_POLICY_CADENCES = ['1d', '7d', '14d', '1month', '3month'] as const;
const CONTAINER_POLICY_OLDER_THAN = ['7d', '14d', '30d', '90d'];
const CONTAINER_POLICY_KEEP_N = [1, 5, 10, 25, 50, 100];

/** A regex GitLab accepts (`untrusted_regexp`: RE2 syntax, which is what it will be run with). */
const regexpError = untrustedRegexpError;

/**
 * ContainerExpirationPolicy's validations on the settings sent (a create) or as they will be (an edit): cadence present
 * and one of the options; older_than and keep_n one of theirs or null (empty / 0); when enabled, name_regex present and
 * both regexes valid. Keys are the policy's attribute names.
 */
function containerExpirationPolicyErrors(s: Settings): [string, string[]][] {
  const out: [string, string[]][] = [];
  const cadence = s.containerExpirationPolicyCadence;
  if (cadence !== undefined && !(CONTAINER_POLICY_CADENCES as readonly string[]).includes(cadence)) {
    out.push(['cadence', cadence.trim() === '' ? ["can't be blank", 'is not included in the list'] : ['is not included in the list']]);
  }
  const olderThan = s.containerExpirationPolicyOlderThan;
  if (olderThan && !CONTAINER_POLICY_OLDER_THAN.includes(olderThan)) out.push(['older_than', ['is not included in the list']]);
  const keepN = s.containerExpirationPolicyKeepN;
  if (keepN && !CONTAINER_POLICY_KEEP_N.includes(keepN)) out.push(['keep_n', ['is not included in the list']]);
  if (s.containerExpirationPolicyEnabled) {
    const regex = s.containerExpirationPolicyNameRegex;
    const regexErrors = regex === undefined ? [] : regex.trim() === '' ? ["can't be blank"] : [regexpError(regex)].filter((m): m is string => !!m);
    if (regexErrors.length) out.push(['name_regex', regexErrors]);
    const keep = s.containerExpirationPolicyNameRegexKeep && regexpError(s.containerExpirationPolicyNameRegexKeep);
    if (keep) out.push(['name_regex_keep', [keep]]);
  }
  return out;
}

const DAY_MS = 86_400_000;
/** `ChronicDuration.parse(cadence)`: days, and months of 30 days. */
const CADENCE_MS: Readonly<Record<(typeof CONTAINER_POLICY_CADENCES)[number], number>> = {
  '1d': DAY_MS, '7d': 7 * DAY_MS, '14d': 14 * DAY_MS, '1month': 30 * DAY_MS, '3month': 90 * DAY_MS,
};

const POLICY_KEYS = Object.keys(CONTAINER_EXPIRATION_POLICY_DEFAULTS).filter((k) => k !== 'containerExpirationPolicyNextRunAt');

/** Whether these (sent or changed) settings touch the container expiration policy. */
export const touchesContainerPolicy = (s: Settings): boolean => POLICY_KEYS.some((k) => s[k as Key] !== undefined);

/**
 * The policy's next run, as GitLab's `Schedulable#set_next_run_at` sets it whenever the policy is saved: `now` plus the
 * cadence (ISO 8601). `since` unset: never saved since creation (`createdAt`).
 */
export function containerPolicyNextRunAt(cadence: string | undefined, since: Date): string {
  const ms = CADENCE_MS[(cadence ?? '1d') as keyof typeof CADENCE_MS] ?? DAY_MS;
  return new Date(since.getTime() + ms).toISOString();
}

/** The next run for each cadence when the policy is saved at `now` (the store picks the one of the cadence it keeps). */
export const containerPolicyNextRunsAt = (now: Date): Record<string, string> =>
  Object.fromEntries(CONTAINER_POLICY_CADENCES.map((c) => [c, containerPolicyNextRunAt(c, now)]));

/** Effective settings as shown: a policy never saved since creation runs one cadence after the project's creation. */
export function withContainerPolicySchedule(settings: Required<Settings>, createdAt: Date): Required<Settings> {
  if (!settings.containerExpirationPolicyNextRunAt) {
    settings.containerExpirationPolicyNextRunAt = containerPolicyNextRunAt(settings.containerExpirationPolicyCadence, createdAt);
  }
  return settings;
}
