import { createPool, type Pool } from '@glp/db';
import { infraFromEnv, startStack, type RunningStack } from '@glp/testing';

/** Sharing projects with groups over HTTP (POST/DELETE /projects/:id/share), its effects, /users, /groups, member import. */
describe('project sharing through the gateway', () => {
  let stack: RunningStack;
  let db: Pool;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const api = (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown, as?: string) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), as });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_sharing' });
    db = createPool({ url: infraFromEnv().databaseUrl, schema: stack.schemas.projects, max: 1 });
    for (const name of ['alice', 'bob', 'carol', 'dave']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    // alice owns group "team" with private project "app"; bob is a Developer of group "ops"; carol has a private group.
    ids.team = (await expectJson(await api('/groups', json('POST', { name: 'Team', path: 'team', visibility: 'private' }, 'alice')), 201)).id;
    ids.ops = (await expectJson(await api('/groups', json('POST', { name: 'Ops', path: 'ops', visibility: 'public' })), 201)).id;
    ids.hidden = (await expectJson(await api('/groups', json('POST', { name: 'Hidden', path: 'hidden', visibility: 'private' }, 'carol')), 201)).id;
    await expectJson(await api(`/groups/${ids.ops}/members`, json('POST', { user_id: ids.bob, access_level: 30 })), 201);
    ids.app = (await expectJson(await api('/projects', json('POST', { name: 'app', namespace_id: ids.team, visibility: 'private' }, 'alice')), 201)).id;
    ids.tools = (await expectJson(await api('/projects', json('POST', { name: 'tools', namespace_id: ids.team, visibility: 'private' }, 'alice')), 201)).id;
    await expectJson(await api(`/projects/${ids.app}/members`, json('POST', { user_id: ids.dave, access_level: 30 }, 'alice')), 201);
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it("answers GitLab's refusals", async () => {
    const share = (body: Record<string, unknown>, as = 'alice', id = ids.app) => api(`/projects/${id}/share`, json('POST', body, as));
    expect(await expectJson(await share({ group_id: ids.ops, group_access: 20 }, 'dave'), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await share({ group_id: ids.ops, group_access: 20 }, 'carol'), 404)).toEqual({ message: '404 Project Not Found' });
    expect(await expectJson(await share({ group_id: ids.hidden, group_access: 20 }), 404)).toEqual({ message: 'Not Found' });
    expect(await expectJson(await share({ group_id: 999999, group_access: 20 }), 404)).toEqual({ message: 'Not Found' });
    expect(await expectJson(await share({ group_id: ids.team, group_access: 20 }), 409))
      .toEqual({ message: 'Project cannot be shared with the group it is in or one of its ancestors.' });
    expect(await expectJson(await share({ group_id: ids.ops, group_access: 25 }), 400)).toEqual({ error: 'group_access does not have a valid value' });
    expect(await expectJson(await share({ group_access: 20 }), 400)).toEqual({ error: 'group_id is missing' });
  });

  it('shares: a member of the group reads the private project with min(level, group_access)', async () => {
    expect((await api(`/projects/${ids.app}`, { as: 'bob' })).status).toBe(404);
    const link = await expectJson(await api(`/projects/${ids.app}/share`, json('POST', { group_id: ids.ops, group_access: 20, expires_at: '2999-01-31' }, 'alice')), 201);
    expect(link).toEqual({ id: expect.any(Number), project_id: ids.app, group_id: ids.ops, group_access: 20, expires_at: '2999-01-31' });
    expect(await expectJson(await api(`/projects/${ids.app}/share`, json('POST', { group_id: ids.ops, group_access: 30 }, 'alice')), 409))
      .toEqual({ message: 'Project already shared with this group' });

    const seen = await expectJson(await api(`/projects/${ids.app}`, { as: 'bob' }), 200);
    expect(seen.shared_with_groups).toEqual([{ group_id: ids.ops, group_name: 'Ops', group_full_path: 'ops', group_access_level: 20, expires_at: '2999-01-31' }]);
    expect(seen.permissions).toEqual({ project_access: null, group_access: null });
    const mine = await expectJson(await api('/projects?membership=true&min_access_level=20', { as: 'bob' }), 200);
    expect(mine.map((p: { id: number }) => p.id)).toEqual([ids.app]);
    expect(await expectJson(await api('/projects?min_access_level=30', { as: 'bob' }), 200)).toEqual([]);
    // Reporter through the share: editing needs Maintainer.
    expect((await api(`/projects/${ids.app}`, json('PUT', { description: 'x' }, 'bob'))).status).toBe(403);
    const ops = await expectJson(await api(`/groups/${ids.ops}`, { as: 'bob' }), 200);
    expect(ops.shared_projects.map((p: { id: number }) => p.id)).toEqual([ids.app]);
    expect((await expectJson(await api(`/groups/${ids.ops}`, { as: 'carol' }), 200)).shared_projects).toEqual([]);
  });

  it('lists the users and groups of the project', async () => {
    const users = await api(`/projects/${ids.app}/users`, { as: 'bob' });
    // root created "ops" (its Owner): members of shared groups count.
    expect(users.headers.get('x-total')).toBe('4');
    expect((await expectJson(users, 200)).map((u: { username: string }) => u.username)).toEqual(['root', 'alice', 'bob', 'dave']);
    const first = (await expectJson(await api(`/projects/${ids.app}/users?search=bo`, { as: 'bob' }), 200))[0];
    expect(first).toEqual({
      id: ids.bob, username: 'bob', public_email: null, name: 'bob', state: 'active', locked: false, avatar_url: null, web_url: `${stack.url}/bob`,
    });
    const skipped = await expectJson(await api(`/projects/${ids.app}/users?skip_users=${ids.alice},${ids.dave}`, { as: 'bob' }), 200);
    expect(skipped.map((u: { username: string }) => u.username)).toEqual(['root', 'bob']);

    expect(await expectJson(await api(`/projects/${ids.app}/groups`, { as: 'bob' }), 200)).toEqual([
      { id: ids.team, web_url: `${stack.url}/groups/team`, name: 'Team', avatar_url: null, full_name: 'Team', full_path: 'team' },
    ]);
    const shared = await expectJson(await api(`/projects/${ids.app}/groups?with_shared=true`, { as: 'bob' }), 200);
    expect(shared.map((g: { id: number }) => g.id)).toEqual([ids.team, ids.ops]);
    const min = await expectJson(await api(`/projects/${ids.app}/groups?with_shared=true&shared_min_access_level=30`, { as: 'bob' }), 200);
    expect(min.map((g: { id: number }) => g.id)).toEqual([ids.team]);
    expect((await api(`/projects/${ids.app}/users`, { as: 'carol' })).status).toBe(404);
  });

  it("ends with the link's expiry, and with unsharing", async () => {
    await db.query('UPDATE project_group_links SET expires_at = current_date');
    expect((await api(`/projects/${ids.app}`, { as: 'bob' })).status).toBe(404);
    expect((await expectJson(await api(`/projects/${ids.app}`, { as: 'alice' }), 200)).shared_with_groups).toEqual([]);
    await db.query("UPDATE project_group_links SET expires_at = current_date + 1");
    expect((await api(`/projects/${ids.app}`, { as: 'bob' })).status).toBe(200);

    expect(await expectJson(await api(`/projects/${ids.app}/share/${ids.ops}`, { method: 'DELETE', as: 'dave' }), 403)).toEqual({ message: '403 Forbidden' });
    const gone = await api(`/projects/${ids.app}/share/${ids.ops}`, { method: 'DELETE', as: 'alice' });
    expect([gone.status, await gone.text()]).toEqual([204, '']);
    expect((await api(`/projects/${ids.app}`, { as: 'bob' })).status).toBe(404);
    expect(await expectJson(await api(`/projects/${ids.app}/share/${ids.ops}`, { method: 'DELETE', as: 'alice' }), 404)).toEqual({ message: '404 Group Link Not Found' });
  });

  it('imports the members of another project', async () => {
    const path = (target: number, source: number | string) => `/projects/${target}/import_project_members/${source}`;
    expect(await expectJson(await api(path(ids.tools, 999999), { method: 'POST', as: 'alice' }), 404)).toEqual({ message: '404 Project Not Found' });
    expect(await expectJson(await api(path(ids.tools, ids.app), { method: 'POST', as: 'carol' }), 404)).toEqual({ message: '404 Project Not Found' });
    expect(await expectJson(await api(path(ids.app, ids.tools), { method: 'POST', as: 'dave' }), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api(path(ids.tools, encodeURIComponent('team/app')), { method: 'POST', as: 'alice' }), 200)).toEqual({ status: 'success' });
    const members = await expectJson(await api(`/projects/${ids.tools}/members`, { as: 'alice' }), 200);
    // Both are group projects: alice owns them through the group (no direct membership); dave's direct one is copied.
    expect(members.map((m: { username: string; access_level: number }) => [m.username, m.access_level])).toEqual([['dave', 30]]);
    // Importing again changes nothing.
    expect(await expectJson(await api(path(ids.tools, ids.app), { method: 'POST', as: 'alice' }), 200)).toEqual({ status: 'success' });
  });
});
