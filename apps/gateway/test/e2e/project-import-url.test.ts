import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, serveDirectory, startStack, type RunningStack } from '@glp/testing';

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();

/**
 * `import_url` on POST /projects with the real repo-admin: GitLab's probe (422 for a blocked, unreachable or non-git
 * URL), the import reaching `finished` with the source's branches and tags, the URL shown masked to Maintainers only,
 * and the credentials nowhere in the services' logs. The source is a bare repository served over (dumb) HTTP on
 * 127.0.0.1, allowed by the test configuration's outbound allowlist only for that port. Another git server on
 * 127.0.0.1, on a port no rule allows, holds an "internal" repository the allowed server tries to redirect imports to.
 */
describe('importing a repository from a URL', () => {
  let stack: RunningStack;
  let server: { port: number; close(): void };
  let internal: { port: number; close(): void };
  let port = 0;
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-import-src-'));
  const internalRoot = mkdtempSync(path.join(os.tmpdir(), 'glp-import-internal-'));
  let probeServed = false;
  /** The allowed server's hostile answers: `/to-internal/…` always redirects; `/after-probe/…` serves its first
   * `info/refs` (GitLab's probe) and redirects every later request, the import's fetch included. */
  const hostile = (p: string): string | undefined => {
    const toInternal = `http://127.0.0.1:${internal.port}/internal.git`;
    if (p.startsWith('/to-internal/internal.git')) return toInternal + p.slice('/to-internal/internal.git'.length);
    if (!p.startsWith('/after-probe/internal.git')) return undefined;
    if (probeServed) return toInternal + p.slice('/after-probe/internal.git'.length);
    if (p.includes('/info/refs')) probeServed = true;
    return undefined;
  };
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
    execFileSync('git', ['clone', '-q', '--bare', path.join(root, 'source.git'), path.join(root, 'after-probe', 'internal.git')]);
    git(path.join(root, 'after-probe', 'internal.git'), 'update-server-info');
    const secret = path.join(internalRoot, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', secret]);
    git(secret, '-c', 'user.name=I', '-c', 'user.email=i@e', 'commit', '-q', '--allow-empty', '-m', 'internal only');
    git(secret, 'branch', 'internal-secret');
    execFileSync('git', ['clone', '-q', '--bare', secret, path.join(internalRoot, 'internal.git')]);
    git(path.join(internalRoot, 'internal.git'), 'update-server-info');
    internal = await serveDirectory(internalRoot);
    server = await serveDirectory(root, hostile);
    port = server.port;
    // One attempt per import job: a refused fetch fails the import at once.
    const allow = { IMPORT_URL_ALLOWLIST: `127.0.0.1:${port}`, JOB_MAX_ATTEMPTS: '1' };
    stack = await startStack({ name: 'e2e_import', env: allow });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    server?.close();
    internal?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(internalRoot, { recursive: true, force: true });
  });

  /** The refs in a project's repository once its import settled (none if it has no repository). */
  const settledImport = async (id: number) => {
    const seen = await eventually(async () => {
      const p = await expectJson(await api(`/projects/${id}`), 200);
      return p.import_status === 'finished' || p.import_status === 'failed' ? p : undefined;
    }, 30_000);
    const h = (await import('node:crypto')).createHash('sha256').update(String(id)).digest('hex');
    const dir = path.join(stack.storageRoot, `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`);
    const refs = existsSync(dir) ? git(dir, 'for-each-ref', '--format=%(refname)').split('\n').filter(Boolean) : [];
    return { import_status: seen.import_status, import_error: seen.import_error, refs };
  };

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

  it('refuses an allowed host’s 302 to a loopback git server at the probe: 422, nothing created or imported', async () => {
    const before = Number((await api('/projects?per_page=1')).headers.get('x-total'));
    const res = await create({ name: 'redirected', import_url: `http://127.0.0.1:${port}/to-internal/internal.git` });
    const body = (await res.json()) as { id: number; message?: string };
    const imported = res.status === 201 ? await settledImport(body.id) : undefined;
    expect({ status: res.status, message: body.message, imported }).toEqual({ status: 422, message: 'Unable to access repository with the URL and credentials provided', imported: undefined });
    expect(Number((await api('/projects?per_page=1')).headers.get('x-total'))).toBe(before);
  });

  it('refuses the redirect when the allowed host starts redirecting after the probe: the import fails, nothing imported', async () => {
    const project = await expectJson(await create({ name: 'redirected-later', import_url: `http://127.0.0.1:${port}/after-probe/internal.git` }), 201);
    expect(probeServed).toBe(true);
    expect(await settledImport(project.id)).toEqual({ import_status: 'failed', import_error: 'Unable to access repository with the URL and credentials provided', refs: [] });
  });
});
