import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, permanentRemovalPath, startStack, type RunningStack } from '@glp/testing';

const run = promisify(execFile);
const PYTHON = path.join(REPO_ROOT, '.venv/bin/python');
const MOVED = { message: 'Non GET methods are not allowed for moved projects' };
const HIDDEN = { message: '404 Project Not Found' };

/**
 * Projects reached by an old (renamed or moved) path over HTTP (GitLab `find_project!`): GET/HEAD 301 to the same route
 * with the project id, other methods 405, the usual 404 for a project the caller cannot read.
 */
describe('projects reached by an old path through the gateway', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let app = 0; // alice's private project "app", renamed to "app-renamed"

  const api = (urlPath: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${urlPath}`, { redirect: 'manual', ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return JSON.parse(text);
  };
  /** A 301 to `target` (relative to /api/v4), with GitLab's plain-text body. */
  const expectMoved = async (res: Response, target: string) => {
    const location = `${stack.apiUrl}${target}`;
    const text = await res.text();
    if (res.status !== 301) throw new Error(`expected 301, got ${res.status}: ${text}`);
    expect(res.headers.get('location')).toBe(location);
    expect(text).toBe(`This resource has been moved permanently to ${location}`);
  };
  const enc = encodeURIComponent;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_redirects' });
    for (const name of ['alice', 'bob']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    app = (await expectJson(await api('/projects', { ...json('POST', { name: 'app' }), as: 'alice' }), 201)).id;
    expect(await expectJson(await api(`/projects/${app}`, { ...json('PUT', { path: 'app-renamed' }), as: 'alice' }), 200))
      .toMatchObject({ path_with_namespace: 'alice/app-renamed' });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('GET and HEAD of the old path: 301 to the same URL with the id, query string kept; following it gives the project', async () => {
    const res = await api(`/projects/${enc('alice/app')}?statistics=true&license=true`, { as: 'alice' });
    await expectMoved(res, `/projects/${app}?statistics=true&license=true`);
    expect(res.headers.get('content-type')).toBeNull();

    const head = await api(`/projects/${enc('alice/app')}`, { method: 'HEAD', as: 'alice' });
    expect(head.status).toBe(301);
    expect(head.headers.get('location')).toBe(`${stack.apiUrl}/projects/${app}`);
    expect(await head.text()).toBe('');

    const followed = await api(`/projects/${enc('alice/app')}`, { as: 'alice', redirect: 'follow' });
    expect(followed.redirected).toBe(true);
    expect(await expectJson(followed, 200)).toMatchObject({ id: app, path_with_namespace: 'alice/app-renamed' });
    // The live path, in any letter case, is no redirect.
    expect(await expectJson(await api(`/projects/${enc('Alice/APP-renamed')}`, { as: 'alice' }), 200)).toMatchObject({ id: app });
  });

  it('PUT, POST and DELETE on the old path: 405 with GitLab’s message, and nothing changes', async () => {
    expect(await expectJson(await api(`/projects/${enc('alice/app')}`, { ...json('PUT', { description: 'changed' }), as: 'alice' }), 405)).toEqual(MOVED);
    expect(await expectJson(await api(`/projects/${enc('alice/app')}/star`, { method: 'POST', as: 'alice' }), 405)).toEqual(MOVED);
    expect(await expectJson(await api(`/projects/${enc('alice/app')}/members`, { ...json('POST', { user_id: ids.bob, access_level: 30 }), as: 'alice' }), 405)).toEqual(MOVED);
    expect(await expectJson(await api(`/projects/${enc('alice/app')}`, { method: 'DELETE', as: 'alice' }), 405)).toEqual(MOVED);
    const after = await expectJson(await api(`/projects/${app}`, { as: 'alice' }), 200);
    expect(after).toMatchObject({ id: app, path_with_namespace: 'alice/app-renamed', star_count: 0 });
    expect(after.description).not.toBe('changed');
    expect((await expectJson(await api(`/projects/${app}/members`, { as: 'alice' }), 200)).map((m: { username: string }) => m.username)).toEqual(['alice']);
  });

  it('a project the caller cannot read: the usual 404, whatever the method', async () => {
    expect(await expectJson(await api(`/projects/${enc('alice/app')}`, { as: 'bob' }), 404)).toEqual(HIDDEN);
    expect(await expectJson(await api(`/projects/${enc('alice/app')}`, { as: null }), 404)).toEqual(HIDDEN);
    expect(await expectJson(await api(`/projects/${enc('alice/app')}`, { ...json('PUT', { description: 'x' }), as: 'bob' }), 404)).toEqual(HIDDEN);
    expect(await expectJson(await api(`/projects/${enc('alice/app')}/members`, { as: 'bob' }), 404)).toEqual(HIDDEN);
  });

  it('sub-routes redirect to the same sub-route with the id, whichever service serves them', async () => {
    await expectMoved(await api(`/projects/${enc('alice/app')}/members?per_page=5`, { as: 'alice' }), `/projects/${app}/members?per_page=5`);
    await expectMoved(await api(`/projects/${enc('alice/app')}/members/${ids.alice}`, { as: 'alice' }), `/projects/${app}/members/${ids.alice}`);
    // access-requests asks projects for the project and relays its answer unchanged.
    await expectMoved(await api(`/projects/${enc('alice/app')}/access_requests`, { as: 'alice' }), `/projects/${app}/access_requests`);
    expect(await expectJson(await api(`/projects/${enc('alice/app')}/access_requests`, { method: 'POST', as: 'alice' }), 405)).toEqual(MOVED);
    expect(await expectJson(await api(`/projects/${enc('alice/app')}/access_requests`, { as: 'bob' }), 404)).toEqual(HIDDEN);
  });

  it('a transfer and a group rename leave the old paths of the projects below; a new project taking a path wins', async () => {
    const guild = await expectJson(await api('/groups', { ...json('POST', { name: 'Guild', path: 'guild' }), as: 'alice' }), 201);
    const sub = await expectJson(await api('/groups', { ...json('POST', { name: 'Sub', path: 'sub', parent_id: guild.id }), as: 'alice' }), 201);
    const lib = await expectJson(await api('/projects', { ...json('POST', { name: 'lib', namespace_id: sub.id }), as: 'alice' }), 201);
    const tool = await expectJson(await api('/projects', { ...json('POST', { name: 'tool' }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${tool.id}/transfer`, { ...json('PUT', { namespace: guild.id }), as: 'alice' }), 200);
    await expectMoved(await api(`/projects/${enc('alice/tool')}`, { as: 'alice' }), `/projects/${tool.id}`);

    await expectJson(await api(`/groups/${guild.id}`, { ...json('PUT', { path: 'crew' }), as: 'alice' }), 200);
    // projects learns of the new full paths from identity's NamespaceChanged events.
    const deadline = Date.now() + 30_000;
    let res = await api(`/projects/${enc('guild/sub/lib')}`, { as: 'alice' });
    while (res.status !== 301 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      res = await api(`/projects/${enc('guild/sub/lib')}`, { as: 'alice' });
    }
    await expectMoved(res, `/projects/${lib.id}`);
    await expectMoved(await api(`/projects/${enc('guild/tool')}/members`, { as: 'alice' }), `/projects/${tool.id}/members`);
    expect(await expectJson(await api(`/projects/${enc('crew/sub/lib')}`, { as: 'alice' }), 200)).toMatchObject({ id: lib.id });

    const taker = await expectJson(await api('/projects', { ...json('POST', { name: 'tool' }), as: 'alice' }), 201);
    expect(await expectJson(await api(`/projects/${enc('alice/tool')}`, { as: 'alice' }), 200)).toMatchObject({ id: taker.id });
    // Deleting a project deletes its redirects: its old path is 404 again. DELETE marks it (GitLab 18, renamed); removed
    // at once with permanently_remove and its renamed full path.
    expect(await expectJson(await api(`/projects/${lib.id}`, { method: 'DELETE', as: 'alice' }), 202)).toEqual({ message: '202 Accepted' });
    expect(await expectJson(await api(permanentRemovalPath({ id: lib.id, path_with_namespace: 'crew/sub/lib' }), { method: 'DELETE', as: 'alice' }), 202)).toEqual({ message: '202 Accepted' });
    expect(await expectJson(await api(`/projects/${enc('guild/sub/lib')}`, { as: 'alice' }), 404)).toEqual(HIDDEN);
  });

  it('python-gitlab follows the 301 of an old path for GET and reports the 405 of a write', async () => {
    if (!existsSync(PYTHON)) throw new Error('.venv is missing: run deploy/local/python-clients.sh (npm test does)');
    const script = [
      'import json, os, gitlab',
      "gl = gitlab.Gitlab(os.environ['GITLAB_URL'], private_token=os.environ['GITLAB_TOKEN'])",
      "p = gl.projects.get('alice/app')",
      'try:',
      "    gl.http_put('/projects/alice%2Fapp', post_data={'description': 'x'})",
      '    put = None',
      'except gitlab.exceptions.GitlabHttpError as e:',
      '    put = [e.response_code, e.error_message]',
      "print(json.dumps({'id': p.id, 'path_with_namespace': p.path_with_namespace, 'put': put}))",
    ].join('\n');
    let stdout: string;
    try {
      ({ stdout } = await run(PYTHON, ['-c', script], { env: { ...process.env, GITLAB_URL: stack.url, GITLAB_TOKEN: tokens.alice }, timeout: 60000 }));
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`python-gitlab failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
    expect(JSON.parse(stdout)).toEqual({ id: app, path_with_namespace: 'alice/app-renamed', put: [405, MOVED.message] });
  });
});
