import { startStack, type RunningStack } from '@glp/testing';

/**
 * Project members and access requests over HTTP (REST → gateway → projects / access-requests → identity), in order:
 * alice owns group "acme" and its project "acme/app"; bob is a Developer of the group; carol asks for access; dave stays
 * outside. Every step checks status, body and what is visible afterwards.
 */
describe('project members and access requests through the gateway', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let project: { id: number };
  let group: { id: number };

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
    expect(res.headers.get('content-type')).toBe('application/json');
    return JSON.parse(text);
  };
  const expectEmpty = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    expect(text).toBe('');
  };
  const levels = (list: Array<{ username: string; access_level: number }>) => list.map((m) => [m.username, m.access_level]);

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_members' });
    for (const name of ['alice', 'bob', 'carol', 'dave']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name: name.toUpperCase(), email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    group = await expectJson(await api('/groups', { ...json('POST', { name: 'Acme', path: 'acme', visibility: 'internal' }), as: 'alice' }), 201);
    await expectJson(await api(`/groups/${group.id}/members`, { ...json('POST', { user_id: ids.bob, access_level: 30 }), as: 'alice' }), 201);
    project = await expectJson(await api('/projects', { ...json('POST', { name: 'app', namespace_id: group.id, visibility: 'private' }), as: 'alice' }), 201);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('gives group members their group access to a private group project; outsiders get 404', async () => {
    const seen = await expectJson(await api(`/projects/${project.id}`, { as: 'bob' }), 200);
    expect(seen.permissions).toEqual({ project_access: null, group_access: { access_level: 30, notification_level: 3 } });
    expect(await expectJson(await api(`/projects/${project.id}`, { as: 'dave' }), 404)).toEqual({ message: '404 Project Not Found' });
    const mine = await expectJson(await api('/projects?membership=true', { as: 'bob' }), 200);
    expect(mine.map((p: { id: number }) => p.id)).toEqual([project.id]);
    // GroupDetail lists the group's projects the caller may read
    const detail = await expectJson(await api(`/groups/${group.id}`, { as: 'bob' }), 200);
    expect(detail.projects.map((p: { id: number; path_with_namespace: string }) => [p.id, p.path_with_namespace])).toEqual([[project.id, 'acme/app']]);
    expect(detail.shared_projects).toEqual([]);
    expect((await expectJson(await api(`/groups/${group.id}`, { as: 'dave' }), 200)).projects).toEqual([]); // internal group, private project
    expect(await expectJson(await api(`/groups/${group.id}?with_projects=false`, { as: 'bob' }), 200)).not.toHaveProperty('projects');
  });

  it("shows external users internal projects only when they are members (GitLab's external users)", async () => {
    const ext = await expectJson(await api('/users', json('POST', { username: 'ext', name: 'Ext', email: 'ext@example.com', password: 'ext-password-1', external: true })), 201);
    expect(ext.external).toBe(true);
    tokens.ext = (await expectJson(await api(`/users/${ext.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    const internal = await expectJson(await api('/projects', { ...json('POST', { name: 'inside', visibility: 'internal' }), as: 'alice' }), 201);
    expect(await expectJson(await api(`/projects/${internal.id}`, { as: 'dave' }), 200)).toMatchObject({ id: internal.id });
    expect(await expectJson(await api(`/projects/${internal.id}`, { as: 'ext' }), 404)).toEqual({ message: '404 Project Not Found' });
    expect((await expectJson(await api('/projects', { as: 'ext' }), 200)).map((p: { id: number }) => p.id)).not.toContain(internal.id);
    await expectJson(await api(`/projects/${internal.id}/members`, { ...json('POST', { user_id: ext.id, access_level: 10 }), as: 'alice' }), 201);
    expect(await expectJson(await api(`/projects/${internal.id}`, { as: 'ext' }), 200)).toMatchObject({ id: internal.id });
  });

  it('adds, lists, changes and removes project members with GitLab answers', async () => {
    const added = await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { username: 'dave', access_level: 20, expires_at: '2999-12-31' }), as: 'alice' }), 201);
    expect(added).toMatchObject({ id: ids.dave, username: 'dave', name: 'DAVE', state: 'active', access_level: 20, expires_at: '2999-12-31', membership_state: 'active', created_by: { id: ids.alice, username: 'alice' } });
    expect(await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.dave, access_level: 20 }), as: 'alice' }), 409)).toEqual({ message: 'Member already exists' });
    expect(await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: 999999, access_level: 20 }), as: 'alice' }), 404)).toEqual({ message: '404 User Not Found' });
    expect(await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.carol, access_level: 35 }), as: 'alice' }), 400)).toEqual({ error: 'access_level does not have a valid value' });
    expect(await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.carol, access_level: 50 }), as: 'alice' }), 400)).toEqual({ message: { access_level: ['is not included in the list'] } });
    expect(await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.bob, access_level: 10 }), as: 'alice' }), 400)).toEqual({
      message: { access_level: ['should be greater than or equal to Developer inherited membership from group Acme'] },
    });
    expect(await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.carol, access_level: 10 }), as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });

    const direct = await api(`/projects/${project.id}/members`, { as: 'dave' });
    // alice created the group project: she is its Owner through the group, not a direct member (GitLab adds none).
    expect(levels(await expectJson(direct, 200))).toEqual([['dave', 20]]);
    expect(direct.headers.get('x-total')).toBe('1');
    expect(levels(await expectJson(await api(`/projects/${project.id}/members/all`, { as: 'dave' }), 200))).toEqual([['alice', 50], ['bob', 30], ['dave', 20]]);
    expect(await expectJson(await api(`/projects/${project.id}/members/all/${ids.bob}`, { as: 'dave' }), 200)).toMatchObject({ username: 'bob', access_level: 30 });
    expect(await expectJson(await api(`/projects/${project.id}/members/${ids.bob}`, { as: 'dave' }), 404)).toEqual({ message: '404 Not found' });

    expect(await expectJson(await api(`/projects/${project.id}/members/${ids.dave}`, { ...json('PUT', { access_level: 40 }), as: 'alice' }), 200)).toMatchObject({ access_level: 40, expires_at: '2999-12-31' });
    await expectEmpty(await api(`/projects/${project.id}/members/${ids.dave}`, { method: 'DELETE', as: 'alice' }), 204);
    expect(await expectJson(await api(`/projects/${project.id}`, { as: 'dave' }), 404)).toEqual({ message: '404 Project Not Found' });
    expect(await expectJson(await api(`/projects/${project.id}/members/${ids.dave}`, { method: 'DELETE', as: 'alice' }), 404)).toEqual({ message: '404 Not found' });
  });

  it('turns an access request into a membership: request, list, approve (201, access_level, no requested_at)', async () => {
    const requested = await expectJson(await api(`/groups/${group.id}/access_requests`, { method: 'POST', as: 'carol' }), 201);
    expect(requested).toMatchObject({ id: ids.carol, username: 'carol', name: 'CAROL', state: 'active' });
    expect(Date.parse(requested.requested_at)).not.toBeNaN();
    expect(requested.created_at).toBe(requested.requested_at);
    expect(await expectJson(await api(`/groups/${group.id}/access_requests`, { method: 'POST', as: 'carol' }), 400)).toEqual({ message: { user_id: ['already exists in source'] } });
    expect(await expectJson(await api(`/groups/${group.id}/access_requests`, { method: 'POST', as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api(`/groups/${group.id}/access_requests`, { as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
    const listed = await expectJson(await api(`/groups/${group.id}/access_requests`, { as: 'alice' }), 200);
    expect(listed.map((r: { username: string }) => r.username)).toEqual(['carol']);

    expect(await expectJson(await api(`/groups/${group.id}/access_requests/${ids.dave}/approve`, { method: 'PUT', as: 'alice' }), 404)).toEqual({ message: '404 Not found' });
    const approved = await expectJson(await api(`/groups/${group.id}/access_requests/${ids.carol}/approve?access_level=20`, { method: 'PUT', as: 'alice' }), 201);
    expect(approved).toMatchObject({ id: ids.carol, username: 'carol', access_level: 20 });
    expect(approved).not.toHaveProperty('requested_at');
    expect(await expectJson(await api(`/groups/${group.id}/access_requests`, { as: 'alice' }), 200)).toEqual([]);
    expect(await expectJson(await api(`/groups/${group.id}/members/${ids.carol}`, { as: 'alice' }), 200)).toMatchObject({ access_level: 20 });
    // as a Reporter of the group, carol now reads the private project
    expect(await expectJson(await api(`/projects/${project.id}`, { as: 'carol' }), 200)).toMatchObject({ id: project.id });
  });

  it('lets project maintainers approve with the body level (default 30), refuses Owner for projects, and lets requesters withdraw', async () => {
    await expectJson(await api(`/projects/${project.id}/access_requests`, { method: 'POST', as: 'dave' }), 404); // private project: hidden from dave
    const open = await expectJson(await api('/projects', { ...json('POST', { name: 'open', visibility: 'public' }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${open.id}/access_requests`, { method: 'POST', as: 'dave' }), 201);
    expect(await expectJson(await api(`/projects/${open.id}/access_requests/${ids.dave}/approve`, { ...json('PUT', { access_level: 50 }), as: 'alice' }), 400)).toEqual({ message: { access_level: ['is not included in the list'] } });
    const approved = await expectJson(await api(`/projects/${open.id}/access_requests/${ids.dave}/approve`, { method: 'PUT', as: 'alice' }), 201);
    expect(approved).toMatchObject({ username: 'dave', access_level: 30 });
    expect(await expectJson(await api(`/projects/${open.id}/members/${ids.dave}`, { as: 'alice' }), 200)).toMatchObject({ access_level: 30 });

    await expectJson(await api(`/projects/${open.id}/access_requests`, { method: 'POST', as: 'carol' }), 201);
    expect(await expectJson(await api(`/projects/${open.id}/access_requests/${ids.carol}`, { method: 'DELETE', as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
    await expectEmpty(await api(`/projects/${open.id}/access_requests/${ids.carol}`, { method: 'DELETE', as: 'carol' }), 204);
    expect(await expectJson(await api(`/projects/${open.id}/access_requests`, { as: 'alice' }), 200)).toEqual([]);
    expect(await expectJson(await api(`/projects/${open.id}/access_requests`, { method: 'POST', as: null }), 401)).toEqual({ message: '401 Unauthorized' });
  });
});
