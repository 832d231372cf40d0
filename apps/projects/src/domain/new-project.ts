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

/** Validates and completes a create request; throws `invalid` with every field problem. */
export function buildNewProject(input: NewProjectInput): NewProject {
  const { name, path } = deriveNameAndPath(input);
  const errors: FieldErrors = {};
  const add = (k: string, msgs: string[]) => msgs.length && (errors[k] = [...(errors[k] ?? []), ...msgs]);
  add('name', nameErrors(name));
  add('path', pathErrors(path));
  if (input.description !== undefined && input.description.length > MAX_DESCRIPTION) {
    add('description', [`is too long (maximum is ${MAX_DESCRIPTION} characters)`]);
  }
  const topics = normalizeTopics(input.topics);
  if (topics.some((t) => t.length > 255)) add('topics', ['is too long (maximum is 255 characters)']);
  const settings = explicitSettings(input.settings);
  for (const [k, v] of Object.entries(settingsErrors(settings))) add(k, v);
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
