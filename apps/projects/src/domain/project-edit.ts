import type { projectsV1 } from '@glp/proto';
import { invalid, type Actor, type FieldErrors } from '@glp/service-kit';
import { attributeErrors, normalizeTopics } from './new-project';
import { defaultSettings, effectiveSettings, settingName, type Settings } from './project-settings';
import { ACCESS, type VisibilityLevel } from './visibility';

/**
 * Editing a project (GitLab's `PUT /projects/:id`: `lib/api/projects.rb` `put ':id'`, `Projects::UpdateService`, the
 * Project model's validations). Pure: who may change what, whether the edit is valid, and what actually changes.
 */

/** The instance default branch name: a project's default branch while its repository has no branch of its own. */
export const INSTANCE_DEFAULT_BRANCH = 'main';

/** What an edit asks for; an absent attribute stays as it is. */
export interface ProjectEdit {
  name?: string;
  path?: string;
  description?: string;
  visibility?: VisibilityLevel;
  defaultBranch?: string;
  /** Set: replaces the topics (as sent, normalized here). */
  topics?: string[];
  /** Only the settings the client sent. */
  settings: Settings;
  /** A new import source URL (pull mirror), and mirror configuration changes. */
  importUrl?: string;
  mirror?: projectsV1.MirrorSettings;
}

/** The stored state an edit applies to. */
export interface EditableProject {
  name: string;
  path: string;
  description: string | null;
  visibility: VisibilityLevel;
  defaultBranch: string | null;
  topics: string[];
  /** The settings stored explicitly (the others take their defaults). */
  settings: Settings;
}

/** What to write: only what changes; `settings` is merged into the stored settings. */
export interface ProjectPatch {
  name?: string;
  path?: string;
  description?: string;
  visibility?: VisibilityLevel;
  topics?: string[];
  settings?: Settings;
}

export interface EditPlan {
  patch: ProjectPatch;
  /** The API attribute names whose value changed (ProjectUpdated's `changed`); empty: nothing to write. */
  changed: string[];
}

const RANK: Readonly<Record<VisibilityLevel, number>> = { private: 0, internal: 1, public: 2 };

/**
 * GitLab's authorizations of `put ':id'`: `admin_project` (Maintainer) for any edit, `rename_project` (Maintainer
 * too) for a new name, and `change_visibility_level` (Owner) as soon as a visibility is sent, even the current one.
 * Administrators may do everything. (Reading comes first: a project the caller cannot read is 404, not 403.)
 */
export function mayEdit(actor: Actor, access: number, edit: Pick<ProjectEdit, 'visibility'>): boolean {
  if (actor.admin) return true;
  if (access < ACCESS.MAINTAINER) return false;
  return edit.visibility === undefined || access >= ACCESS.OWNER;
}

/**
 * The sent settings the caller may change. GitLab drops the others silently (`remove_unallowed_params`):
 * `emails_enabled` (and its deprecated inverse `emails_disabled`) needs `set_emails_disabled`, an Owner's right.
 */
export function allowedSettings(actor: Actor, access: number, settings: Settings): Settings {
  if (actor.admin || access >= ACCESS.OWNER || settings.emailsEnabled === undefined) return settings;
  const { emailsEnabled: _dropped, ...rest } = settings;
  return rest;
}

/**
 * Whether the edit needs the visibility of the project's group: a group project may not become more visible than its
 * group (`visibility_level_allowed_by_group`, checked only when the visibility changes; private always fits).
 */
export function needsGroupVisibility(current: Pick<EditableProject, 'visibility'>, namespaceKind: string, edit: Pick<ProjectEdit, 'visibility'>): boolean {
  return namespaceKind === 'group' && edit.visibility !== undefined && edit.visibility !== current.visibility && edit.visibility !== 'private';
}

const topicKey = (topics: string[]) => JSON.stringify(topics.map((t) => t.toLowerCase()).sort());

/**
 * Validates an edit against the stored project and works out what changes. Throws `invalid` like GitLab:
 * - a new default branch the repository does not have (an empty repository has none) is refused first, as
 *   `Projects::UpdateService#validate!` does before saving: `{"base":["Could not change HEAD: branch 'x' does not exist"]}`;
 * - then every model validation at once: name/path format and length, uniqueness in the namespace (`taken`, found by
 *   the caller), description and topic length, settings values, merge requests/CI more visible than the repository
 *   (on the settings as they will be), and a visibility above the group's (`groupVisibility`, when needed).
 * An attribute sent with its current value is no change; topics differing only in case are none either (GitLab's
 * topics are shared records found case-insensitively). When the visibility changes, settings whose default depends on
 * it and were never set keep the value they had (GitLab stores them at creation; they do not follow the visibility).
 */
export function planProjectEdit(
  current: EditableProject,
  edit: ProjectEdit,
  checks: { taken: { name: boolean; path: boolean }; groupVisibility?: VisibilityLevel },
): EditPlan {
  if (edit.defaultBranch !== undefined && edit.defaultBranch !== (current.defaultBranch || INSTANCE_DEFAULT_BRANCH)) {
    throw invalid({ base: [`Could not change HEAD: branch '${edit.defaultBranch}' does not exist`] });
  }
  const topics = edit.topics && normalizeTopics(edit.topics);
  // Settings are checked as the project will have them: a feature left at its default counts (GitLab validates the
  // whole project_feature record, absent levels as "enabled").
  const settingsAfter = effectiveSettings({ ...current.settings, ...edit.settings }, edit.visibility ?? current.visibility);
  const errors: FieldErrors = attributeErrors({ name: edit.name, path: edit.path, description: edit.description, topics, settings: settingsAfter });
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  if (checks.taken.name) add('name', 'has already been taken');
  if (checks.taken.path) add('path', 'has already been taken');
  const visibility = edit.visibility;
  const group = checks.groupVisibility;
  if (visibility !== undefined && visibility !== current.visibility && group !== undefined && RANK[visibility] > RANK[group]) {
    add('visibility_level', `${visibility} is not allowed in a ${group} group.`);
  }
  if (Object.keys(errors).length) throw invalid(errors);

  const patch: ProjectPatch = {};
  const changed: string[] = [];
  const change = <K extends Exclude<keyof ProjectPatch, 'settings'>>(key: K, value: ProjectPatch[K]) => {
    patch[key] = value;
    changed.push(key);
  };
  if (edit.name !== undefined && edit.name !== current.name) change('name', edit.name);
  if (edit.path !== undefined && edit.path !== current.path) change('path', edit.path);
  if (edit.description !== undefined && edit.description !== current.description) change('description', edit.description);
  if (visibility !== undefined && visibility !== current.visibility) change('visibility', visibility);
  if (topics !== undefined && topicKey(topics) !== topicKey(current.topics)) change('topics', topics);

  const effective = effectiveSettings(current.settings, current.visibility) as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(edit.settings)) {
    if (value === undefined || !Object.hasOwn(effective, key) || effective[key] === value) continue;
    settings[key] = value;
    changed.push(settingName(key));
  }
  if (patch.visibility !== undefined) {
    const before = defaultSettings(current.visibility) as Record<string, unknown>;
    const after = defaultSettings(patch.visibility) as Record<string, unknown>;
    for (const key of Object.keys(before)) {
      if (before[key] !== after[key] && !Object.hasOwn(current.settings, key) && !(key in settings)) settings[key] = before[key];
    }
  }
  if (Object.keys(settings).length) patch.settings = settings as Settings;
  return { patch, changed };
}
