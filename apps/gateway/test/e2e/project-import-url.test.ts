import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, serveDirectory, startStack, type RunningStack } from '@glp/testing';

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();

/**
 * `import_url` on POST /projects with the real repo-admin: GitLab's probe (422 for a blocked, unreachable or non-git
 * URL), the import reaching `finished` with the source's branches and tags, the URL shown masked to Maintainers only,
 * and the credentials nowhere in the services' logs. The source is a bare repository served over (dumb) HTTP on
 * 127.0.0.1, allowed by the test configuration's outbound allowlist only for that port.
 */
describe('importing a repository from a URL', () => {
  let stack: RunningStack;
  let server: { port: number; close(): void };
  let port = 0;
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-import-src-'));
  const api = (p: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': init.token ?? stack.rootToken, 'Content-Type': 'application/json', ...init.headers } });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const create = (body: Record<string, unknown>) => api('/projects', { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    // A source repository with two branches and a tag, served as static files (git's dumb HTTP protocol).
    const work = path.join(root, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', work]);
    git(work, '-c', 'user.name=S', '-c', 'user.email=s@e', 'commit', '-q', '--allow-empty', '-m', 'first');
    git(work, 'branch', 'develop');
    git(work, 'tag', 'v1.0');
    execFileSync('git', ['clone', '-q', '--bare', work, path.join(root, 'source.git')]);
    git(path.join(root, 'source.git'), 'update-server-info');
    server = await serveDirectory(root);
    port = server.port;
    const allow = { IMPORT_URL_ALLOWLIST: `127.0.0.1:${port}` };
    stack = await startStack({ name: 'e2e_import', env: allow });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('imports the branches and tags; import_status goes scheduled → finished; the URL is shown masked to Maintainers only', async () => {
    const url = `http://importer:s3cr3t-pass@127.0.0.1:${port}/source.git`;
    const project = await expectJson(await create({ name: 'imported', import_url: url, visibility: 'public' }), 201);
    expect(project).toMatchObject({ import_status: 'scheduled', import_type: 'git', import_url: `http://*****:*****@127.0.0.1:${port}/source.git`, mirror: false });
    const done = await eventually(async () => {
      const seen = await expectJson(await api(`/projects/${project.id}`), 200);
      return seen.import_status === 'finished' && !seen.empty_repo ? seen : undefined;
    }, 30_000);
    expect(done).toMatchObject({ default_branch: 'main', import_error: null });
    const h = (await import('node:crypto')).createHash('sha256').update(String(project.id)).digest('hex');
    const dir = path.join(stack.storageRoot, `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`);
    expect(git(dir, 'for-each-ref', '--format=%(refname)').split('\n').sort()).toEqual(['refs/heads/develop', 'refs/heads/main', 'refs/tags/v1.0']);

    // Someone who does not administer the project sees neither the URL nor the type.
    const anonymous = await expectJson(await fetch(`${stack.apiUrl}/projects/${project.id}`), 200);
    expect(anonymous).not.toHaveProperty('import_url');
    expect(stack.logs()).not.toContain('s3cr3t-pass');
  });

  it('answers GitLab’s 422 for a blocked, non-git or unreachable URL, creating nothing', async () => {
    const before = Number((await api('/projects?per_page=1')).headers.get('x-total'));
    expect(await expectJson(await create({ name: 'x1', import_url: 'ftp://127.0.0.1/x.git' }), 422)).toEqual({ message: 'Only allowed schemes are http, https, git' });
    expect(await expectJson(await create({ name: 'x2', import_url: 'http://127.0.0.1:1/x.git' }), 422)).toEqual({ message: 'Requests to loopback addresses are not allowed' });
    expect(await expectJson(await create({ name: 'x3', import_url: 'http://10.1.2.3/x.git' }), 422)).toEqual({ message: 'Requests to the local network are not allowed' });
    expect(await expectJson(await create({ name: 'x4', import_url: `http://127.0.0.1:${port}/missing.git` }), 422))
      .toEqual({ message: 'Unable to access repository with the URL and credentials provided' });
    expect(Number((await api('/projects?per_page=1')).headers.get('x-total'))).toBe(before);
  });

  it('takes mirror settings with the import and shows them (EE block)', async () => {
    const project = await expectJson(await create({ name: 'mirrored', import_url: `http://127.0.0.1:${port}/source.git`, mirror: true, mirror_trigger_builds: true }), 201);
    expect(project).toMatchObject({ mirror: true, mirror_trigger_builds: true, only_mirror_protected_branches: false, mirror_overwrites_diverged_branches: false });
    const plain = await expectJson(await create({ name: 'not-mirrored' }), 201);
    expect(plain).toMatchObject({ mirror: false, import_url: null, import_type: null });
    expect(plain).not.toHaveProperty('mirror_trigger_builds');
  });
});
