import { canDownloadCode, canPushCode, type Actor, type GitProjectView } from '@glp/service-kit';

// The download/push rules live in service-kit (projects decides with them too, e.g. which events show pushes).
export { canDownloadCode, canPushCode, type GitProjectView } from '@glp/service-kit';

/**
 * Who may clone, fetch and push over HTTP — GitLab's rules, from `lib/gitlab/auth.rb` (what a token's scopes allow),
 * `lib/gitlab/git_access.rb` (the order of checks and their messages) and `app/policies/project_policy.rb`
 * (`download_code`, `push_code`).
 */

export type GitCommand = 'git-upload-pack' | 'git-receive-pack';
export const isGitCommand = (c: unknown): c is GitCommand => c === 'git-upload-pack' || c === 'git-receive-pack';

/** GitLab's answers (`Gitlab::GitAccess::ERROR_MESSAGES`, `Repositories::GitHttpClientController#render_access_denied`). */
export const GIT_MESSAGES = {
  authDownload: 'You are not allowed to download code.',
  authUpload: 'You are not allowed to upload code.',
  commandNotAllowed: "The command you're trying to execute is not allowed.",
  projectNotFound: "The project you were looking for could not be found or you don't have permission to view it.",
  noRepository: 'A repository for this project does not exist yet.',
  download: 'You are not allowed to download code from this project.',
  pushCode: 'You are not allowed to push code to this project.',
} as const;

/** `Repositories::GitHttpClientController#render_access_denied` (with `WWW-Authenticate: Basic realm="GitLab"`). */
export function accessDeniedText(helpBaseUrl: string): string {
  const help = `${helpBaseUrl.replace(/\/+$/, '')}/help/topics/git/troubleshooting_git.md#error-on-git-fetch-http-basic-access-denied`;
  return 'HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or ' +
    "you're required to use a token instead of a password. If a token was provided, it was either incorrect, expired, " +
    `or improperly scoped. See ${help}`;
}

export interface GitAbilities {
  download: boolean;
  push: boolean;
}

/**
 * What a personal access token may do over git (`Gitlab::Auth#abilities_for_scopes`): `api` everything, `read_api` and
 * `read_repository` download, `write_repository` download and push; other scopes nothing.
 */
export function abilitiesForScopes(scopes: readonly string[]): GitAbilities {
  const has = (s: string) => scopes.includes(s);
  return {
    download: has('api') || has('read_api') || has('read_repository') || has('write_repository'),
    push: has('api') || has('write_repository'),
  };
}

export interface GitDenial {
  status: 403 | 404;
  message: string;
}

/**
 * The checks before the project is looked at (`GitAccess#check`: `check_authentication_abilities!`, then
 * `check_command_existence!`): the credentials must allow the command, and the command must be a git service.
 */
export function checkCommand(command: string | undefined, abilities: GitAbilities): GitDenial | undefined {
  if (command === 'git-upload-pack' && !abilities.download) return { status: 403, message: GIT_MESSAGES.authDownload };
  if (command === 'git-receive-pack' && !abilities.push) return { status: 403, message: GIT_MESSAGES.authUpload };
  if (!isGitCommand(command)) return { status: 403, message: GIT_MESSAGES.commandNotAllowed };
  return undefined;
}

/**
 * The checks on the project (`check_container!`, then the download or push check): a project the caller cannot read
 * is 404; then the command's ability, else 403. (`check_repository_existence!` comes between them: the caller runs it
 * when this answers 403, and repo-admin when the request goes through.)
 */
export function checkProject(command: GitCommand, actor: Actor, p: GitProjectView | undefined): GitDenial | undefined {
  if (!p) return { status: 404, message: GIT_MESSAGES.projectNotFound };
  if (command === 'git-upload-pack') return canDownloadCode(actor, p) ? undefined : { status: 403, message: GIT_MESSAGES.download };
  return canPushCode(actor, p) ? undefined : { status: 403, message: GIT_MESSAGES.pushCode };
}
