import { invalid, type FieldErrors } from '@glp/service-kit';
import { deriveNameAndPath, nameErrors, pathErrors } from './project-path';
import { explicitSettings, settingsErrors, type Settings } from './project-settings';
import { DEFAULT_VISIBILITY, type VisibilityLevel } from './visibility';

export interface NewProjectInput {
  name?: string;
  path?: string;
  description?: string;
  visibility?: VisibilityLevel;
  defaultBranch?: string;
  topics: string[];
  settings?: Settings;
}

export interface NewProject {
  name: string;
  path: string;
  description: string | null;
  visibility: VisibilityLevel;
  defaultBranch: string | null;
  topics: string[];
  settings: Settings;
}

const MAX_DESCRIPTION = 2000;

/** Topics as GitLab stores them: trimmed, blanks dropped, de-duplicated case-insensitively, in the given order. */
export function normalizeTopics(topics: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of topics.flatMap((t) => t.split(','))) {
    const t = raw.trim();
    if (!t || seen.has(t.toLowerCase())) continue;
    seen.add(t.toLowerCase());
    out.push(t);
  }
  return out;
}

/** The attributes a create or an edit sets; only those given are validated. */
export interface ProjectAttributes {
  name?: string;
  path?: string;
  description?: string | null;
  /** Already normalized (`normalizeTopics`). */
  topics?: string[];
  /** The settings the project will have (a create: those sent; an edit: all of them as they will be, defaults included). */
  settings?: Settings;
}

/**
 * GitLab's model validations of project attributes (`app/models/project.rb`, `project_feature.rb`, `ci_cd_settings`):
 * every problem of every given attribute, keyed like `errors.messages`, in one object (empty when valid). Creating
 * and editing a project share it.
 */
export function attributeErrors(a: ProjectAttributes): FieldErrors {
  const errors: FieldErrors = {};
  const add = (k: string, msgs: string[]) => msgs.length && (errors[k] = [...(errors[k] ?? []), ...msgs]);
  if (a.name !== undefined) add('name', nameErrors(a.name));
  if (a.path !== undefined) add('path', pathErrors(a.path));
  if (a.description != null && a.description.length > MAX_DESCRIPTION) {
    add('description', [`is too long (maximum is ${MAX_DESCRIPTION} characters)`]);
  }
  if (a.topics?.some((t) => t.length > 255)) add('topics', ['is too long (maximum is 255 characters)']);
  if (a.settings) for (const [k, v] of Object.entries(settingsErrors(a.settings))) add(k, v);
  return errors;
}

/** Validates and completes a create request; throws `invalid` with every field problem. */
export function buildNewProject(input: NewProjectInput): NewProject {
  const { name, path } = deriveNameAndPath(input);
  const topics = normalizeTopics(input.topics);
  const settings = explicitSettings(input.settings);
  const errors = attributeErrors({ name, path, description: input.description, topics, settings });
  if (Object.keys(errors).length) throw invalid(errors);
  return {
    name,
    path,
    description: input.description ?? null,
    visibility: input.visibility ?? DEFAULT_VISIBILITY,
    defaultBranch: input.defaultBranch || null,
    topics,
    settings,
  };
}
