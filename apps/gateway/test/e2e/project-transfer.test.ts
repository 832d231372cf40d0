import { startStack, type RunningStack } from '@glp/testing';

/** PUT /projects/:id/transfer over HTTP: Owners move a project into a namespace they may create in, with GitLab's answers. */
describe('project transfer through the gateway', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const api = (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return JSON.parse(text);
  };
  const failure = (reason: string) => ({ message: `Failed to transfer project {:new_namespace=>["${reason}"]}` });

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_transfer' });
    for (const name of ['alice', 'bob']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('moves a project into a group by path, lowering its visibility to the group’s', async () => {
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'mover', visibility: 'public' }), as: 'alice' }), 201);
    const group = await expectJson(await api('/groups', { ...json('POST', { name: 'Target', path: 'target', visibility: 'internal' }), as: 'alice' }), 201);
    const moved = await expectJson(await api(`/projects/${project.id}/transfer`, { ...json('PUT', { namespace: 'target' }), as: 'alice' }), 200);
    expect(moved).toMatchObject({ id: project.id, path_with_namespace: 'target/mover', visibility: 'internal', namespace: { id: group.id, kind: 'group', full_path: 'target' } });
    expect(await expectJson(await api(`/projects/${encodeURIComponent('target/mover')}`, { as: 'alice' }), 200)).toMatchObject({ id: project.id });
    // The old path is a redirect route now (GitLab `find_project!`): 301 to the project's id (project-redirects.test.ts).
    const old = await api(`/projects/${encodeURIComponent('alice/mover')}`, { as: 'alice', redirect: 'manual' });
    expect([old.status, old.headers.get('location')]).toEqual([301, `${stack.apiUrl}/projects/${project.id}`]);
    expect(await expectJson(await api(`/projects/${project.id}/transfer`, { ...json('PUT', { namespace: group.id }), as: 'alice' }), 400)).toEqual(failure('Project is already in this namespace.'));
  });

  it('refuses hidden namespaces (404), namespaces without create rights and name clashes (400), and non-owners (403)', async () => {
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'stay' }), as: 'alice' }), 201);
    expect(await expectJson(await api(`/projects/${project.id}/transfer`, { ...json('PUT', { namespace: 'bob' }), as: 'alice' }), 404)).toEqual({ message: '404 Namespace Not Found' });
    const bobs = await expectJson(await api('/groups', { ...json('POST', { name: 'Bobs', path: 'bobs' }), as: 'bob' }), 201);
    await expectJson(await api(`/groups/${bobs.id}/members`, { ...json('POST', { user_id: ids.alice, access_level: 30 }), as: 'bob' }), 201);
    expect(await expectJson(await api(`/projects/${project.id}/transfer`, { ...json('PUT', { namespace: 'bobs' }), as: 'alice' }), 400))
      .toEqual(failure("You don't have permission to transfer projects into that namespace."));
    await expectJson(await api('/projects', { ...json('POST', { name: 'stay', namespace_id: (await expectJson(await api('/groups/target', { as: 'alice' }), 200)).id }), as: 'alice' }), 201);
    expect(await expectJson(await api(`/projects/${project.id}/transfer`, { ...json('PUT', { namespace: 'target' }), as: 'alice' }), 400))
      .toEqual(failure('Project with same name or path in target namespace already exists'));
    await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.bob, access_level: 40 }), as: 'alice' }), 201);
    expect(await expectJson(await api(`/projects/${project.id}/transfer`, { ...json('PUT', { namespace: 'bobs' }), as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api(`/projects/${project.id}/transfer`, { method: 'PUT', as: 'alice' }), 400)).toEqual({ error: 'namespace is missing' });
  });
});
