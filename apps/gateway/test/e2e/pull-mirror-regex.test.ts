import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, rootApi, serveDirectory, startStack, type RunningStack } from '@glp/testing';

const ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'Up', GIT_AUTHOR_EMAIL: 'up@e', GIT_COMMITTER_NAME: 'Up', GIT_COMMITTER_EMAIL: 'up@e' };
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: ENV }).trim();
const hashed = (id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
};

/**
 * `mirror_branch_regex` is a user's pattern run by repo-admin's job worker against upstream branch names: it is RE2
 * (linear time), validated when saved. A catastrophic backtracking pattern against a hostile branch name finishes at
 * once and the worker goes on with other jobs; a pattern RE2 does not accept is GitLab's 400 and nothing is saved.
 */
describe('pull mirror branch regex from users', () => {
  let stack: RunningStack;
  let server: { port: number; close(): void };
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-mirror-regex-'));
  const work = path.join(root, 'work');
  const upstream = path.join(root, 'upstream.git');
  const { api, expectJson } = rootApi(() => stack);

  beforeAll(async () => {
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', upstream], { env: ENV });
    execFileSync('git', ['clone', '-q', upstream, work], { env: ENV });
    git(work, 'checkout', '-q', '-b', 'main');
    git(work, 'commit', '-q', '--allow-empty', '-m', 'first');
    git(work, 'push', '-q', 'origin', 'main');
    git(upstream, 'update-server-info');
    server = await serveDirectory(root);
    stack = await startStack({ name: 'e2e_mirror_regex', env: { IMPORT_URL_ALLOWLIST: `127.0.0.1:${server.port}`, MIRROR_POLL_MS: '200' } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('^(a+)+$ against a branch "aaaa…a!" finishes quickly, mirrors what matches, and other jobs keep moving', async () => {
    const url = `http://127.0.0.1:${server.port}/upstream.git`;
    const project = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'mirror-redos', import_url: url, mirror: true }) }), 201);
    await eventually(async () => (await expectJson(await api(`/projects/${project.id}`), 200)).import_status === 'finished', 30_000);
    const dir = path.join(stack.storageRoot, hashed(project.id));

    const hostile = `${'a'.repeat(40)}!`;
    git(work, 'checkout', '-q', '-b', hostile);
    git(work, 'commit', '-q', '--allow-empty', '-m', 'hostile');
    git(work, 'push', '-q', 'origin', hostile);
    git(work, 'checkout', '-q', '-b', 'aaaa', 'main');
    git(work, 'commit', '-q', '--allow-empty', '-m', 'matching');
    git(work, 'push', '-q', 'origin', 'aaaa');
    const matching = git(work, 'rev-parse', 'HEAD');
    git(upstream, 'update-server-info');

    // Saving the regex queues a mirror update (ProjectUpdated naming `mirror`).
    const started = Date.now();
    await expectJson(await api(`/projects/${project.id}`, { method: 'PUT', body: JSON.stringify({ mirror: true, mirror_branch_regex: '^(a+)+$' }) }), 200);
    // Another project's repository job, queued behind it, is done too.
    const other = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'after-the-mirror' }) }), 201);
    await eventually(async () => existsSync(dir) && git(dir, 'for-each-ref', '--format=%(objectname)', 'refs/heads/aaaa') === matching, 20_000);
    await eventually(async () => existsSync(path.join(stack.storageRoot, hashed(other.id), 'HEAD')), 20_000);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(git(dir, 'for-each-ref', '--format=%(refname)', `refs/heads/${hostile}`)).toBe('');
    const state = await eventually(async () => {
      const s = await expectJson(await api(`/projects/${project.id}/mirror/pull`), 200);
      return s.update_status === 'finished' ? s : undefined;
    }, 20_000);
    expect(state).toMatchObject({ last_error: null, mirror_branch_regex: '^(a+)+$' });
  }, 90_000);

  it('refuses a pattern RE2 does not accept when it is saved (400, GitLab\'s model error), on edit and on create', async () => {
    const url = `http://127.0.0.1:${server.port}/upstream.git`;
    const project = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'mirror-bad-regex', import_url: url, mirror: true }) }), 201);
    const bad = await api(`/projects/${project.id}`, { method: 'PUT', body: JSON.stringify({ mirror: true, mirror_branch_regex: '^(a)\\1$' }) });
    expect(await expectJson(bad, 400)).toEqual({ message: { 'project_setting.mirror_branch_regex': ['not valid RE2 syntax: invalid escape sequence: \\1'] } });
    const look = await api(`/projects/${project.id}`, { method: 'PUT', body: JSON.stringify({ mirror: true, mirror_branch_regex: 'main(?=x)' }) });
    expect(await expectJson(look, 400)).toEqual({ message: { 'project_setting.mirror_branch_regex': ['not valid RE2 syntax: invalid perl operator: (?='] } });
    expect((await expectJson(await api(`/projects/${project.id}/mirror/pull`), 200)).mirror_branch_regex).toBeNull();
    const created = await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'mirror-bad-create', import_url: url, mirror: true, mirror_branch_regex: '(' }) });
    expect(await expectJson(created, 400)).toEqual({ message: { 'project_setting.mirror_branch_regex': ['not valid RE2 syntax: missing ): ('] } });
    expect((await api('/projects/root%2Fmirror-bad-create')).status).toBe(404);
  });
});
