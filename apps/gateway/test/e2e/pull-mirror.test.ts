import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, serveDirectory, startStack, type RunningStack } from '@glp/testing';

const ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'Up', GIT_AUTHOR_EMAIL: 'up@e', GIT_COMMITTER_NAME: 'Up', GIT_COMMITTER_EMAIL: 'up@e' };
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: ENV }).trim();
const hashed = (id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
};

/**
 * Pull mirroring with the real repo-admin: a project imported with `mirror=true` picks up new upstream commits when
 * POST /projects/:id/mirror/pull asks for an update (200); GET /projects/:id/mirror/pull shows how updates went;
 * diverged branches are left alone (GitLab's error kept) unless mirror_overwrites_diverged_branches; turning mirroring
 * off makes the endpoints answer "The project is not mirrored". The upstream is a bare repository served over dumb HTTP
 * on 127.0.0.1 (allowed by the test's outbound allowlist for that port only).
 */
describe('pull mirrors', () => {
  let stack: RunningStack;
  let server: { port: number; close(): void };
  let port = 0;
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-mirror-src-'));
  const work = path.join(root, 'work');
  const upstream = path.join(root, 'upstream.git');
  // A git server on 127.0.0.1 that no rule allows, with an "internal" repository; the allowed upstream server
  // redirects `/hijack/upstream.git/…` there once `hijacked` is set.
  const internalRoot = mkdtempSync(path.join(os.tmpdir(), 'glp-mirror-internal-'));
  let internal: { port: number; close(): void };
  let hijacked = false;
  const api = (p: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': init.token ?? stack.rootToken, 'Content-Type': 'application/json', ...init.headers } });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const commitUpstream = (message: string, branch = 'main') => {
    git(work, 'checkout', '-q', branch);
    git(work, 'commit', '-q', '--allow-empty', '-m', message);
    git(work, 'push', '-q', 'origin', branch);
    git(upstream, 'update-server-info');
    return git(work, 'rev-parse', 'HEAD');
  };

  beforeAll(async () => {
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', upstream], { env: ENV });
    execFileSync('git', ['clone', '-q', upstream, work], { env: ENV });
    git(work, 'checkout', '-q', '-b', 'main');
    git(work, 'commit', '-q', '--allow-empty', '-m', 'first');
    git(work, 'push', '-q', 'origin', 'main');
    git(upstream, 'update-server-info');
    execFileSync('git', ['clone', '-q', '--bare', upstream, path.join(root, 'hijack', 'upstream.git')], { env: ENV });
    git(path.join(root, 'hijack', 'upstream.git'), 'update-server-info');
    const secret = path.join(internalRoot, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', secret], { env: ENV });
    git(secret, 'commit', '-q', '--allow-empty', '-m', 'internal only');
    git(secret, 'branch', 'internal-secret');
    execFileSync('git', ['clone', '-q', '--bare', secret, path.join(internalRoot, 'internal.git')], { env: ENV });
    git(path.join(internalRoot, 'internal.git'), 'update-server-info');
    internal = await serveDirectory(internalRoot);
    const prefix = '/hijack/upstream.git';
    server = await serveDirectory(root, (p) => (hijacked && p.startsWith(prefix) ? `http://127.0.0.1:${internal.port}/internal.git${p.slice(prefix.length)}` : undefined));
    port = server.port;
    stack = await startStack({ name: 'e2e_mirror', env: { IMPORT_URL_ALLOWLIST: `127.0.0.1:${port}`, MIRROR_POLL_MS: '200' } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    server?.close();
    internal?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(internalRoot, { recursive: true, force: true });
  });

  it('mirrors new upstream commits on demand, shows the mirror state, and keeps diverged branches unless told to overwrite', async () => {
    const url = `http://127.0.0.1:${port}/upstream.git`;
    const project = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'mirror', import_url: url, mirror: true }) }), 201);
    expect(project).toMatchObject({ mirror: true, mirror_user_id: expect.any(Number), mirror_overwrites_diverged_branches: false });
    await eventually(async () => (await expectJson(await api(`/projects/${project.id}`), 200)).import_status === 'finished', 30_000);
    const dir = path.join(stack.storageRoot, hashed(project.id));

    // A new upstream commit and branch arrive with an update asked for now.
    const second = commitUpstream('second');
    git(work, 'checkout', '-q', '-b', 'feature');
    const feature = commitUpstream('feature work', 'feature');
    const before = (await expectJson(await api(`/projects/${project.id}`), 200)).last_activity_at;
    const res = await api(`/projects/${project.id}/mirror/pull`, { method: 'POST' });
    expect(res.status).toBe(200);
    await eventually(async () => existsSync(dir) && git(dir, 'for-each-ref', '--format=%(objectname)', 'refs/heads/feature') === feature, 30_000);
    expect(git(dir, 'rev-parse', 'main')).toBe(second);
    const state = await eventually(async () => {
      const s = await expectJson(await api(`/projects/${project.id}/mirror/pull`), 200);
      return s.update_status === 'finished' ? s : undefined;
    });
    expect(state).toMatchObject({ id: project.id, url, last_error: null, enabled: true, only_mirror_protected_branches: false });
    expect(Date.parse(state.last_successful_update_at)).not.toBeNaN();
    await eventually(async () => (await expectJson(await api(`/projects/${project.id}`), 200)).last_activity_at !== before);

    // A commit made in the mirror only: main has diverged; the update leaves it and says so.
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'glp-mirror-local-'));
    execFileSync('git', ['clone', '-q', dir, tmp], { env: ENV });
    git(tmp, 'commit', '-q', '--allow-empty', '-m', 'local only');
    git(tmp, 'push', '-q', 'origin', 'main');
    const local = git(dir, 'rev-parse', 'main');
    rmSync(tmp, { recursive: true, force: true });
    const third = commitUpstream('third');
    await expectJson(await api(`/projects/${project.id}/mirror/pull`, { method: 'POST' }), 200).catch(() => undefined);
    const diverged = await eventually(async () => {
      const s = await expectJson(await api(`/projects/${project.id}/mirror/pull`), 200);
      return s.update_status === 'finished' && s.last_error ? s : undefined;
    });
    expect(diverged.last_error).toBe('Some refs have diverged and have not been updated on the downstream repository.');
    expect(git(dir, 'rev-parse', 'main')).toBe(local);

    // Told to overwrite diverged branches (an edit queues an update), main follows the upstream.
    const edited = await expectJson(await api(`/projects/${project.id}`, { method: 'PUT', body: JSON.stringify({ mirror: true, mirror_overwrites_diverged_branches: true }) }), 200);
    expect(edited).toMatchObject({ mirror_overwrites_diverged_branches: true });
    await eventually(async () => git(dir, 'rev-parse', 'main') === third, 30_000);
  });

  it('answers GitLab’s 400 for a project that is not mirrored, 403 below Maintainer, 404 hidden; turning mirroring off', async () => {
    const plain = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'plain' }) }), 201);
    expect(await expectJson(await api(`/projects/${plain.id}/mirror/pull`, { method: 'POST' }), 400)).toEqual({ message: 'The project is not mirrored' });
    expect(await expectJson(await api(`/projects/${plain.id}/mirror/pull`), 400)).toEqual({ message: 'The project is not mirrored' });

    const user = await expectJson(await api('/users', { method: 'POST', body: JSON.stringify({ username: 'dev', name: 'Dev', email: 'dev@example.com', password: 'dev-password-1' }) }), 201);
    const token = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, { method: 'POST', body: JSON.stringify({ name: 't', scopes: ['api'] }) }), 201)).token;
    const mirrored = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'm2', import_url: `http://127.0.0.1:${port}/upstream.git`, mirror: true }) }), 201);
    expect(await expectJson(await api(`/projects/${mirrored.id}/mirror/pull`, { method: 'POST', token }), 404)).toEqual({ message: '404 Project Not Found' });
    await expectJson(await api(`/projects/${mirrored.id}/members`, { method: 'POST', body: JSON.stringify({ user_id: user.id, access_level: 30 }) }), 201);
    expect(await expectJson(await api(`/projects/${mirrored.id}/mirror/pull`, { method: 'POST', token }), 403)).toEqual({ message: '403 Forbidden' });
    // Mirror without a URL is the model's error.
    expect(await expectJson(await api(`/projects/${plain.id}`, { method: 'PUT', body: JSON.stringify({ mirror: true }) }), 400)).toEqual({ message: { import_url: ["can't be blank"] } });

    await expectJson(await api(`/projects/${mirrored.id}`, { method: 'PUT', body: JSON.stringify({ mirror: false }) }), 200);
    expect(await expectJson(await api(`/projects/${mirrored.id}/mirror/pull`, { method: 'POST' }), 400)).toEqual({ message: 'The project is not mirrored' });
  });

  it('refuses the upstream’s 302 to a loopback git server on a mirror update: the update fails, nothing mirrored', async () => {
    const project = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'hijacked', import_url: `http://127.0.0.1:${port}/hijack/upstream.git`, mirror: true }) }), 201);
    await eventually(async () => (await expectJson(await api(`/projects/${project.id}`), 200)).import_status === 'finished', 30_000);
    const dir = path.join(stack.storageRoot, hashed(project.id));
    const before = await expectJson(await api(`/projects/${project.id}/mirror/pull`), 200);

    hijacked = true;
    await expectJson(await api(`/projects/${project.id}/mirror/pull`, { method: 'POST' }), 200);
    const state = await eventually(async () => {
      const s = await expectJson(await api(`/projects/${project.id}/mirror/pull`), 200);
      return s.last_update_at !== before.last_update_at && (s.update_status === 'finished' || s.update_status === 'failed') ? s : undefined;
    }, 30_000);
    const refs = git(dir, 'for-each-ref', '--format=%(refname)').split('\n').filter(Boolean);
    expect({ update_status: state.update_status, last_error: state.last_error, refs }).toEqual({
      update_status: 'failed', last_error: 'Unable to access repository with the URL and credentials provided', refs: ['refs/heads/main'],
    });
  });
});
