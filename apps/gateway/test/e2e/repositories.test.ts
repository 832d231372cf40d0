import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { eventually, permanentRemovalPath, startStack, type RunningStack } from '@glp/testing';

const hashed = (id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
};
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();

/**
 * Repositories behind the API, with the real repo-admin: a project's bare repository appears in the hashed layout
 * (with its README commit when asked, and empty_repo false), a fork's repository is copied and its import_status
 * reaches "finished", and a deleted project's repository leaves the disk.
 */
describe('repositories on disk through the stack', () => {
  let stack: RunningStack;
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json', ...init.headers } });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_repos' });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('creates the repository with its README commit, and the project stops being empty', async () => {
    const project = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'with-readme', initialize_with_readme: true, default_branch: 'trunk' }) }), 201);
    expect(project).toMatchObject({ empty_repo: true, default_branch: 'trunk' });
    const dir = path.join(stack.storageRoot, hashed(project.id));
    await eventually(async () => existsSync(dir) && git(dir, 'for-each-ref', '--format=%(refname)') === 'refs/heads/trunk');
    expect(git(dir, 'show', 'trunk:README.md')).toBe('# with-readme');
    expect(git(dir, 'log', '--format=%an|%s', 'trunk')).toBe('Administrator|Initial commit');
    await eventually(async () => (await expectJson(await api(`/projects/${project.id}`), 200)).empty_repo === false);

    const plain = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'plain' }) }), 201);
    const plainDir = path.join(stack.storageRoot, hashed(plain.id));
    await eventually(async () => existsSync(plainDir));
    expect(git(plainDir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect((await expectJson(await api(`/projects/${plain.id}`), 200)).empty_repo).toBe(true);
  });

  it('copies a fork’s repository: import_status goes to finished and the fork is not empty', async () => {
    const source = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'upstream', initialize_with_readme: true, visibility: 'public' }) }), 201);
    const srcDir = path.join(stack.storageRoot, hashed(source.id));
    await eventually(async () => existsSync(srcDir) && git(srcDir, 'for-each-ref') !== '');
    const fork = await expectJson(await api(`/projects/${source.id}/fork`, { method: 'POST', body: JSON.stringify({ path: 'upstream-fork', name: 'upstream-fork' }) }), 201);
    expect(fork.import_status).toBe('scheduled');
    const done = await eventually(async () => {
      const seen = await expectJson(await api(`/projects/${fork.id}`), 200);
      return seen.import_status === 'finished' && !seen.empty_repo ? seen : undefined;
    });
    expect(done).toMatchObject({ import_error: null, default_branch: 'main' });
    expect(git(path.join(stack.storageRoot, hashed(fork.id)), 'rev-parse', 'main')).toBe(git(srcDir, 'rev-parse', 'main'));
  });

  it('removes the repository from the disk when the project is deleted', async () => {
    const project = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'doomed' }) }), 201);
    const dir = path.join(stack.storageRoot, hashed(project.id));
    await eventually(async () => existsSync(dir));
    await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE' }), 202);
    // Marked for deletion (GitLab 18): the repository stays until the project is removed.
    expect(existsSync(dir)).toBe(true);
    await expectJson(await api(permanentRemovalPath(project), { method: 'DELETE' }), 202);
    await eventually(async () => !existsSync(dir));
  });
});
