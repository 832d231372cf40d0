/**
 * Git smart HTTP URLs as GitLab routes them (`config/routes/git_http.rb`): `<namespace>/<project>.git/info/refs`,
 * `…/git-upload-pack` and `…/git-receive-pack`. Without `.git`, only `GET …/info/refs` (with no query, or
 * `service=git-upload-pack|git-receive-pack` exactly) is routed: a 301 to the `.git` URL
 * (`Constraints::RepositoryRedirectUrlConstrainer`), which git follows, so cloning without `.git` works.
 */

export type GitAction = 'info/refs' | 'git-upload-pack' | 'git-receive-pack';

export interface GitPath {
  /** The project's full path ("group/sub/project"), decoded. */
  projectPath: string;
  /** The URL named the repository with `.git`. */
  dotGit: boolean;
  action: GitAction;
}

const GIT_URL = /^\/(.+?)(\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;
/** A namespace or project path segment (GitLab's path format: letters, digits, `_`, `-`, `.`; not starting with `-`). */
const SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.+-]*$/;

/** The git request a URL path (percent-encoded, without the query) names, or undefined when it is none. */
export function parseGitPath(pathname: string): GitPath | undefined {
  const m = GIT_URL.exec(pathname);
  if (!m) return undefined;
  let projectPath: string;
  try {
    projectPath = decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
  const segments = projectPath.split('/');
  if (segments.length < 2 || segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')) return undefined;
  if (projectPath.startsWith('api/') || projectPath.startsWith('-/')) return undefined;
  return { projectPath, dotGit: m[2] === '.git', action: m[3] as GitAction };
}

/** The query strings GitLab redirects from a path without `.git` (`git_request?`). */
export function isRedirectableQuery(query: string): boolean {
  return query === '' || query === 'service=git-upload-pack' || query === 'service=git-receive-pack';
}

/** Where a path without `.git` is redirected: the same repository with `.git`, the query kept. */
export function dotGitLocation(projectPath: string, query: string): string {
  return `/${projectPath}.git/info/refs${query ? `?${query}` : ''}`;
}
