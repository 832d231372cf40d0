import type { Actor } from '@glp/service-kit';
import type { Settings } from './project-settings';
import { ACCESS, VISIBILITY_LEVELS, type VisibilityLevel } from './visibility';

/**
 * A project feature (GitLab's ProjectFeature) available to the caller: `disabled` to nobody, `private` to members at
 * `privateMin` or above (and administrators), `enabled`/`public` to whoever reads the project.
 */
export function featureAvailable(level: string | undefined, actor: Actor, access: number, privateMin: number): boolean {
  if (level === 'disabled') return false;
  if (level === 'private') return actor.admin || access >= privateMin;
  return true;
}

/**
 * GitLab's `fork_project` ability on a project the caller can read (`app/policies/project_policy.rb`): a signed-in user,
 * with the forking feature and the repository available to them, who is Reporter or above, or reads the project as a
 * public or internal one; administrators always. Denied is 404 at the API (`not_found!` unless can?(:fork_project)).
 */
export function canForkProject(actor: Actor, p: { visibility: VisibilityLevel; settings: Settings; access: number }): boolean {
  if (actor.kind !== 'user') return false;
  if (!featureAvailable(p.settings.forkingAccessLevel, actor, p.access, ACCESS.GUEST)) return false;
  if (!featureAvailable(p.settings.repositoryAccessLevel, actor, p.access, ACCESS.REPORTER)) return false;
  if (actor.admin || p.access >= ACCESS.REPORTER) return true;
  return p.visibility === 'public' || (p.visibility === 'internal' && !actor.external);
}

const rank = (v: VisibilityLevel) => VISIBILITY_LEVELS.indexOf(v);

/**
 * A fork's visibility (`Projects::ForkService#target_visibility_level`): the lowest of the source's, the target
 * namespace's (a personal namespace is public) and the one asked for, when asked.
 */
export function forkVisibility(source: VisibilityLevel, namespace: VisibilityLevel, requested?: VisibilityLevel): VisibilityLevel {
  const levels = [source, namespace, ...(requested ? [requested] : [])];
  return levels.reduce((low, v) => (rank(v) < rank(low) ? v : low));
}

/**
 * The settings a fork takes from its source (ForkService: the feature access levels, CI config path and depth, shared
 * runners, external authorization label and the commit message templates), then `mr_default_target_self` when asked.
 */
export function forkSettings(source: Settings, mrDefaultTargetSelf?: boolean): Settings {
  const copied: Settings = {};
  for (const [key, value] of Object.entries(source) as [keyof Settings, unknown][]) {
    if (value !== undefined && (key.endsWith('AccessLevel') || COPIED.has(key))) (copied as Record<string, unknown>)[key] = value;
  }
  if (mrDefaultTargetSelf !== undefined) copied.mrDefaultTargetSelf = mrDefaultTargetSelf;
  return copied;
}

const COPIED: ReadonlySet<keyof Settings> = new Set<keyof Settings>([
  'ciConfigPath', 'ciDefaultGitDepth', 'sharedRunnersEnabled', 'externalAuthorizationClassificationLabel',
  'suggestionCommitMessage', 'mergeCommitTemplate', 'squashCommitTemplate',
]);

/** GitLab's import_state values a fork goes through. */
export type ImportStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed';

/**
 * GitLab's ProjectImportState machine (`app/models/project_import_state.rb`): start scheduled → started; finish
 * started → finished; fail scheduled/started → failed. `finished` from `scheduled` is accepted too (a start report
 * may never come when the copy is instant). Anything else (a replayed or late report) changes nothing: undefined.
 */
export function nextImportStatus(current: string, report: 'started' | 'finished' | 'failed'): ImportStatus | undefined {
  if (report === 'started') return current === 'scheduled' ? 'started' : undefined;
  return current === 'scheduled' || current === 'started' ? report : undefined;
}

/** GitLab's answers when linking an existing project as a fork (`Projects::ForkService#link_existing_project`). */
export const LINK_FAILURES = {
  alreadyForked: 'Project already forked',
  sameProject: 'Target project cannot be equal to source project',
} as const;
