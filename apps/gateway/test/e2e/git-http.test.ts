import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventTypes, unpackPayload, type PayloadType } from '@glp/events';
import { eventually, gitCli, readServiceEvents, startStack, type RunningStack, type ServiceEvents } from '@glp/testing';

const ZERO = '0'.repeat(40);
const ACCESS_DENIED =
  "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token " +
  'instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped. See ';

/**
 * Git smart HTTP through the gateway with the real git CLI: authentication and access as GitLab (HTTP Basic with a
 * personal access token, anonymous clones of public projects, Developers push, Reporters and archived projects do not),
 * GitLab's plain-text answers, and the Push/TagPush events on Kafka with the project's empty_repo, default_branch and
 * last_activity_at following the push.
 */
describe('git over HTTP through the gateway', () => {
  let stack: RunningStack;
  let events: ServiceEvents | undefined;
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-e2e-git-'));
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const projects: Record<string, { id: number; path_with_namespace: string }> = {};
  const who = ['-c', 'user.name=Dev Eloper', '-c', 'user.email=dev@example.com'];

  const api = (p: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': init.token ?? stack.rootToken, 'Content-Type': 'application/json', ...init.headers } });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  /** The repository URL with credentials, as a person pastes it (`http://oauth2:<token>@host/ns/project.git`). */
  const remote = (project: string, token?: string, user = 'oauth2', suffix = '.git') => {
    const u = new URL(`${stack.url}/${projects[project]!.path_with_namespace}${suffix}`);
    if (token) {
      u.username = user;
      u.password = token;
    }
    return u.toString();
  };
  const basic = (token: string, user = 'anything') => `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`;
  const { git, mustGit } = gitCli(work);
  const eventsOf = <T>(type: PayloadType<T>) => events!.seen.filter((e) => e.eventType === type.typeName).map((e) => unpackPayload(e, type));

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_git_http' });
    events = await readServiceEvents(stack, 'repo-admin', 'e2e-git-http-reader');

    for (const name of ['dev', 'rep', 'out']) {
      const user = await expectJson(await api('/users', { method: 'POST', body: JSON.stringify({ username: name, name: `User ${name}`, email: `${name}@example.com`, password: `${name}-password-1` }) }), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, { method: 'POST', body: JSON.stringify({ name: 'git', scopes: ['api'] }) }), 201)).token;
    }
    tokens.readOnly = (await expectJson(await api(`/users/${ids.dev}/personal_access_tokens`, { method: 'POST', body: JSON.stringify({ name: 'ro', scopes: ['read_repository'] }) }), 201)).token;
    for (const [name, body] of Object.entries({
      readme: { visibility: 'private', initialize_with_readme: true },
      pub: { visibility: 'public', initialize_with_readme: true },
      arch: { visibility: 'private', initialize_with_readme: true },
      blank: { visibility: 'private' },
    })) {
      projects[name] = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name, ...body }) }), 201);
      const id = projects[name]!.id;
      await expectJson(await api(`/projects/${id}/members`, { method: 'POST', body: JSON.stringify({ user_id: ids.dev, access_level: 30 }) }), 201);
      await expectJson(await api(`/projects/${id}/members`, { method: 'POST', body: JSON.stringify({ user_id: ids.rep, access_level: 20 }) }), 201);
    }
    await expectJson(await api(`/projects/${projects.arch!.id}/archive`, { method: 'POST' }), 201);
    // The repositories exist once repo-admin ran their create jobs.
    await eventually(async () => {
      for (const name of ['readme', 'pub', 'arch']) if ((await expectJson(await api(`/projects/${projects[name]!.id}`), 200)).empty_repo) return false;
      return (await git(work, 'ls-remote', remote('blank', stack.rootToken))).code === 0;
    }, 30_000);
  }, 120_000);
  afterAll(async () => {
    await events?.stop();
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('clones a project created with a README, with a token as the password (oauth2 or any username, .git or not)', async () => {
    const dir = path.join(work, 'readme');
    await mustGit(work, 'clone', '-q', remote('readme', stack.rootToken), dir);
    expect(await mustGit(dir, 'log', '--format=%an|%s')).toBe('Administrator|Initial commit');
    expect(await mustGit(dir, 'show', 'HEAD:README.md')).toBe('# readme');
    // Any username; the path without .git is redirected to the .git one (GitLab's RepositoryRedirectUrlConstrainer).
    const bare = path.join(work, 'readme-plain');
    await mustGit(work, 'clone', '-q', remote('readme', tokens.rep!, 'whoever', ''), bare);
    expect(await mustGit(bare, 'rev-parse', 'HEAD')).toBe(await mustGit(dir, 'rev-parse', 'HEAD'));
    const redirect = await fetch(`${stack.url}/${projects.readme!.path_with_namespace}/info/refs?service=git-upload-pack`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe(`${stack.url}/${projects.readme!.path_with_namespace}.git/info/refs?service=git-upload-pack`);
    // Protocol v2 (git's default) and v0 both work; the advertisement has git's content type.
    const v0 = path.join(work, 'readme-v0');
    await mustGit(work, '-c', 'protocol.version=0', 'clone', '-q', remote('readme', tokens.dev!), v0);
    const adv = await fetch(`${stack.url}/${projects.readme!.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: basic(tokens.dev!) } });
    expect(adv.status).toBe(200);
    expect(adv.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect((await adv.text()).startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
  });

  it('pushes a branch and a tag as a Developer: Push and TagPush on Kafka, and the project’s activity moves', async () => {
    const before = await expectJson(await api(`/projects/${projects.readme!.id}`), 200);
    const dir = path.join(work, 'readme-dev');
    await mustGit(work, 'clone', '-q', remote('readme', tokens.dev!), dir);
    const base = await mustGit(dir, 'rev-parse', 'HEAD');
    await mustGit(dir, 'checkout', '-q', '-b', 'feature');
    writeFileSync(path.join(dir, 'hello.txt'), 'hello\n');
    await mustGit(dir, 'add', 'hello.txt');
    await mustGit(dir, ...who, 'commit', '-q', '-m', 'Add hello');
    await mustGit(dir, ...who, 'tag', '-a', 'v1.0', '-m', 'v1.0');
    const head = await mustGit(dir, 'rev-parse', 'HEAD');
    const pushed = await git(dir, 'push', 'origin', 'feature', 'v1.0');
    expect(pushed.code).toBe(0);

    const push = await eventually(async () => eventsOf(EventTypes.Push).find((p) => p.projectId === projects.readme!.id && p.ref === 'refs/heads/feature'), 30_000);
    expect(push).toMatchObject({
      before: ZERO, after: head, checkoutSha: head, totalCommitsCount: 1,
      pusher: { userId: ids.dev, username: 'dev', name: 'User dev' },
    });
    expect(push.commits).toHaveLength(1);
    expect(push.commits[0]).toMatchObject({ id: head, title: 'Add hello', message: 'Add hello\n', authorName: 'Dev Eloper', authorEmail: 'dev@example.com', added: ['hello.txt'] });
    const tag = await eventually(async () => eventsOf(EventTypes.TagPush).find((p) => p.projectId === projects.readme!.id && p.ref === 'refs/tags/v1.0'), 30_000);
    expect(tag).toMatchObject({ before: ZERO, checkoutSha: head, totalCommitsCount: 1 });
    expect(tag.commits.map((c) => c.id)).toEqual([head]);
    expect(head).not.toBe(base);
    // Every event names the pusher in its envelope.
    expect(events!.seen.find((e) => e.eventType === EventTypes.Push.typeName)?.actor).toMatchObject({ userId: ids.dev, username: 'dev' });

    // projects learnt of the push (RepositoryChanged): last_activity_at moved, still not empty, default branch kept.
    const after = await eventually(async () => {
      const p = await expectJson(await api(`/projects/${projects.readme!.id}`), 200);
      return Date.parse(p.last_activity_at) > Date.parse(before.last_activity_at) ? p : undefined;
    }, 30_000);
    expect(after).toMatchObject({ empty_repo: false, default_branch: 'main' });
  });

  it('makes the first branch pushed to an empty repository its default branch', async () => {
    expect(await expectJson(await api(`/projects/${projects.blank!.id}`), 200)).toMatchObject({ empty_repo: true });
    const dir = path.join(work, 'blank');
    await mustGit(work, 'init', '-q', '-b', 'trunk', dir);
    await mustGit(dir, ...who, 'commit', '-q', '--allow-empty', '-m', 'first');
    const res = await git(dir, 'push', remote('blank', tokens.dev!), 'trunk');
    expect(res.code).toBe(0);
    await eventually(async () => {
      const p = await expectJson(await api(`/projects/${projects.blank!.id}`), 200);
      return p.empty_repo === false && p.default_branch === 'trunk';
    }, 30_000);
    const push = eventsOf(EventTypes.Push).find((p) => p.projectId === projects.blank!.id);
    expect(push).toMatchObject({ ref: 'refs/heads/trunk', totalCommitsCount: 1 });
  });

  it('clones a public project anonymously, and refuses a private one with GitLab’s 401', async () => {
    const dir = path.join(work, 'pub');
    await mustGit(work, 'clone', '-q', remote('pub'), dir);
    expect(await mustGit(dir, 'log', '--format=%s')).toBe('Initial commit');

    const refused = await git(work, 'clone', '-q', remote('readme'), path.join(work, 'nope'));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/could not read Username|Authentication failed|401/);
    const res = await fetch(`${stack.url}/${projects.readme!.path_with_namespace}.git/info/refs?service=git-upload-pack`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe(`${ACCESS_DENIED}${stack.url}/help/topics/git/troubleshooting_git.md#error-on-git-fetch-http-basic-access-denied`);
    // Even a public project needs credentials to push.
    const push = await fetch(`${stack.url}/${projects.pub!.path_with_namespace}.git/info/refs?service=git-receive-pack`);
    expect(push.status).toBe(401);
  });

  it('answers a wrong token with 401, a hidden project with 404, and HEAD with 403', async () => {
    // git sends the URL's credentials only when challenged (curl's auth "any"): a private project challenges.
    const wrong = await git(work, 'clone', '-q', remote('readme', 'glpat-not-a-real-token-000'), path.join(work, 'wrong'));
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/HTTP Basic: Access denied|Authentication failed/);
    const res = await fetch(`${stack.url}/${projects.pub!.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: basic('glpat-not-a-real-token-000') } });
    expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="GitLab"']);

    const hidden = await fetch(`${stack.url}/${projects.readme!.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: basic(tokens.out!) } });
    expect(hidden.status).toBe(404);
    expect(await hidden.text()).toBe("The project you were looking for could not be found or you don't have permission to view it.");
    const missing = await fetch(`${stack.url}/root/no-such-project.git/info/refs?service=git-upload-pack`, { headers: { Authorization: basic(tokens.dev!) } });
    expect(missing.status).toBe(404);

    const head = await fetch(`${stack.url}/${projects.pub!.path_with_namespace}.git/info/refs?service=git-upload-pack`, { method: 'HEAD' });
    expect(head.status).toBe(403);
    const noService = await fetch(`${stack.url}/${projects.pub!.path_with_namespace}.git/info/refs`, { headers: { Authorization: basic(tokens.dev!) } });
    expect([noService.status, await noService.text()]).toEqual([403, "The command you're trying to execute is not allowed."]);
  });

  it('refuses pushes from a Reporter, to an archived project and with a read-only token', async () => {
    const dir = path.join(work, 'readme-rep');
    await mustGit(work, 'clone', '-q', remote('readme', tokens.rep!), dir);
    await mustGit(dir, ...who, 'commit', '-q', '--allow-empty', '-m', 'reporter attempt');
    const res = await git(dir, 'push', 'origin', 'HEAD:refs/heads/rep');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('You are not allowed to push code to this project.');
    const refs = await fetch(`${stack.url}/${projects.readme!.path_with_namespace}.git/info/refs?service=git-receive-pack`, { headers: { Authorization: basic(tokens.rep!) } });
    expect([refs.status, await refs.text()]).toEqual([403, 'You are not allowed to push code to this project.']);

    const archived = await fetch(`${stack.url}/${projects.arch!.path_with_namespace}.git/info/refs?service=git-receive-pack`, { headers: { Authorization: basic(tokens.dev!) } });
    expect([archived.status, await archived.text()]).toEqual([403, 'You are not allowed to push code to this project.']);
    const archDir = path.join(work, 'arch');
    await mustGit(work, 'clone', '-q', remote('arch', tokens.dev!), archDir); // reading an archived project is fine
    await mustGit(archDir, ...who, 'commit', '-q', '--allow-empty', '-m', 'too late');
    expect((await git(archDir, 'push', 'origin', 'HEAD')).code).not.toBe(0);

    const readOnly = await fetch(`${stack.url}/${projects.readme!.path_with_namespace}.git/info/refs?service=git-receive-pack`, { headers: { Authorization: basic(tokens.readOnly!) } });
    expect([readOnly.status, await readOnly.text()]).toEqual([403, 'You are not allowed to upload code.']);
    expect(eventsOf(EventTypes.Push).filter((p) => p.ref === 'refs/heads/rep' || p.projectId === projects.arch!.id)).toEqual([]);
  });

  it('answers a push the pre-receive check refuses as git reports it', async () => {
    const dir = path.join(work, 'readme-dev');
    const res = await git(dir, 'push', 'origin', ':main');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('remote: GitLab: The default branch of a project cannot be deleted.');
    expect(res.stderr).toContain('(pre-receive hook declined)');
  });

  it('keeps repo-admin’s git endpoint closed to requests the gateway did not sign', async () => {
    const res = await fetch(`${stack.repoAdminHttpUrl}/projects/${projects.pub!.id}.git/info/refs?service=git-upload-pack`);
    expect(res.status).toBe(401);
    const forged = await fetch(`${stack.repoAdminHttpUrl}/projects/${projects.pub!.id}.git/info/refs?service=git-receive-pack`, {
      headers: { 'x-glp-actor': 'e30', 'x-glp-actor-sig': 'nope' },
    });
    expect(forged.status).toBe(401);
  });
});
