import { ANONYMOUS, type Actor } from '@glp/service-kit';
import { abilitiesForScopes, accessDeniedText, canDownloadCode, canPushCode, checkCommand, checkProject, GIT_MESSAGES, type GitProjectView } from './git-access';

const user = (over: Partial<Actor> = {}): Actor => ({ kind: 'user', id: 5, username: 'u', admin: false, scopes: ['api'], ...over });
const project = (over: Partial<GitProjectView> = {}): GitProjectView => ({ visibility: 'private', archived: false, accessLevel: 0, repositoryAccessLevel: 'enabled', ...over });
const [GUEST, REPORTER, DEVELOPER, MAINTAINER] = [10, 20, 30, 40];

describe('git access (GitLab download_code / push_code)', () => {
  it('gives each token scope its git abilities', () => {
    expect(abilitiesForScopes(['api'])).toEqual({ download: true, push: true });
    expect(abilitiesForScopes(['write_repository'])).toEqual({ download: true, push: true });
    expect(abilitiesForScopes(['read_repository'])).toEqual({ download: true, push: false });
    expect(abilitiesForScopes(['read_api'])).toEqual({ download: true, push: false });
    expect(abilitiesForScopes(['read_user', 'sudo'])).toEqual({ download: false, push: false });
  });

  it('lets anyone download a public project, signed-in non-external users an internal one, Reporters a private one', () => {
    expect(canDownloadCode(ANONYMOUS, project({ visibility: 'public' }))).toBe(true);
    expect(canDownloadCode(ANONYMOUS, project({ visibility: 'internal' }))).toBe(false);
    expect(canDownloadCode(user(), project({ visibility: 'internal' }))).toBe(true);
    expect(canDownloadCode(user({ external: true }), project({ visibility: 'internal' }))).toBe(false);
    expect(canDownloadCode(user({ external: true }), project({ visibility: 'internal', accessLevel: REPORTER }))).toBe(true);
    expect(canDownloadCode(user(), project())).toBe(false);
    expect(canDownloadCode(user(), project({ accessLevel: GUEST }))).toBe(false); // Guests of private projects cannot
    expect(canDownloadCode(user(), project({ accessLevel: REPORTER }))).toBe(true);
    expect(canDownloadCode(user({ admin: true }), project())).toBe(true);
  });

  it('follows the repository feature: disabled for all, private for members', () => {
    expect(canDownloadCode(user({ admin: true }), project({ repositoryAccessLevel: 'disabled' }))).toBe(false);
    expect(canDownloadCode(ANONYMOUS, project({ visibility: 'public', repositoryAccessLevel: 'private' }))).toBe(false);
    expect(canDownloadCode(user(), project({ visibility: 'public', repositoryAccessLevel: 'private' }))).toBe(false);
    expect(canDownloadCode(user(), project({ visibility: 'public', repositoryAccessLevel: 'private', accessLevel: GUEST }))).toBe(true);
    expect(canDownloadCode(user(), project({ visibility: 'public', repositoryAccessLevel: undefined }))).toBe(true);
    expect(canPushCode(user(), project({ accessLevel: MAINTAINER, repositoryAccessLevel: 'disabled' }))).toBe(false);
  });

  it('lets Developers and above push, never to an archived project, never anonymously', () => {
    expect(canPushCode(user(), project({ visibility: 'public', accessLevel: REPORTER }))).toBe(false);
    expect(canPushCode(user(), project({ accessLevel: DEVELOPER }))).toBe(true);
    expect(canPushCode(user(), project({ accessLevel: MAINTAINER, archived: true }))).toBe(false);
    expect(canPushCode(user({ admin: true }), project())).toBe(true);
    expect(canPushCode(ANONYMOUS, project({ visibility: 'public' }))).toBe(false);
  });

  it('checks the credentials’ abilities before the command, then the project (GitAccess#check order)', () => {
    const none = { download: false, push: false };
    const read = { download: true, push: false };
    expect(checkCommand('git-upload-pack', none)).toEqual({ status: 403, message: 'You are not allowed to download code.' });
    expect(checkCommand('git-receive-pack', read)).toEqual({ status: 403, message: 'You are not allowed to upload code.' });
    expect(checkCommand(undefined, read)).toEqual({ status: 403, message: "The command you're trying to execute is not allowed." });
    expect(checkCommand('git-upload-archive', read)).toEqual({ status: 403, message: GIT_MESSAGES.commandNotAllowed });
    expect(checkCommand('git-upload-pack', read)).toBeUndefined();

    expect(checkProject('git-upload-pack', user(), undefined)).toEqual({
      status: 404, message: "The project you were looking for could not be found or you don't have permission to view it.",
    });
    expect(checkProject('git-upload-pack', user(), project({ accessLevel: GUEST }))).toEqual({ status: 403, message: 'You are not allowed to download code from this project.' });
    expect(checkProject('git-receive-pack', user(), project({ accessLevel: REPORTER }))).toEqual({ status: 403, message: 'You are not allowed to push code to this project.' });
    expect(checkProject('git-receive-pack', user(), project({ accessLevel: DEVELOPER }))).toBeUndefined();
  });

  it('answers a wrong password with GitLab’s text and help link', () => {
    expect(accessDeniedText('http://gitlab.example.com/')).toBe(
      "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token " +
      'instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped. See ' +
      'http://gitlab.example.com/help/topics/git/troubleshooting_git.md#error-on-git-fetch-http-basic-access-denied',
    );
  });
});
