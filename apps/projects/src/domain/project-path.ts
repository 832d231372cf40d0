/** GitLab's project name and path rules (Gitlab::Regex.project_name_regex, Gitlab::PathRegex.project_path_format_regex). */

const NAME_FORMAT = /^[\p{L}\p{N}\u{00A9}-\u{1F9FF}_][\p{L}\p{N}\p{Pd}+\u{00A9}-\u{1F9FF}_. ]*$/u;
export const NAME_FORMAT_MESSAGE =
  "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.";

const PATH_FORMAT = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/;
export const PATH_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

/** Words a project path may not be (they are routes under a project: Gitlab::PathRegex::PROJECT_WILDCARD_ROUTES). */
const RESERVED_PROJECT_PATHS = new Set([
  '-', 'badges', 'blame', 'blob', 'builds', 'commits', 'create', 'create_dir', 'edit', 'files', 'find_file', 'new',
  'preview', 'raw', 'refs', 'tree', 'update', 'wikis',
]);

const MAX_LENGTH = 255;

export function nameErrors(name: string): string[] {
  const errors: string[] = [];
  if (!name.trim()) return ["can't be blank"];
  if ([...name].length > MAX_LENGTH) errors.push(`is too long (maximum is ${MAX_LENGTH} characters)`);
  if (!NAME_FORMAT.test(name)) errors.push(NAME_FORMAT_MESSAGE);
  return errors;
}

export function pathErrors(path: string): string[] {
  const errors: string[] = [];
  if (!path) return ["can't be blank"];
  if (path.length > MAX_LENGTH) errors.push(`is too long (maximum is ${MAX_LENGTH} characters)`);
  if (!PATH_FORMAT.test(path) || /\.(git|atom)$/i.test(path)) errors.push(PATH_FORMAT_MESSAGE);
  if (RESERVED_PROJECT_PATHS.has(path.toLowerCase())) errors.push(`${path} is a reserved name`);
  return errors;
}

/** ActiveSupport's `String#parameterize`: ASCII-fold, non [a-z0-9_-] runs to "-", trim dashes, lower-case. */
export function parameterize(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z0-9\-_]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}

/**
 * Name and path of a new project: only a name → the name as path when it is a
 * valid path, else its parameterized form; only a path → the path as name.
 */
export function deriveNameAndPath(input: { name?: string; path?: string }): { name: string; path: string } {
  const name = input.name ?? input.path ?? '';
  let path = input.path;
  if (path === undefined) path = pathErrors(name).length === 0 ? name : parameterize(name);
  return { name, path };
}
