import { startStack, type RunningStack } from '@glp/testing';

/**
 * POST /projects/user/:user_id over HTTP (GitLab `lib/api/projects.rb` `post "user/:user_id"`): an administrator creates
 * a project as another user, who becomes its creator and Owner, in their personal namespace or a namespace they may
 * create in; GitLab's 401/400/403/404 in Grape's order.
 */
describe('creating a project for a user through the gateway', () => {
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
  const createFor = (userId: number | string, body: unknown, as?: string | null) => api(`/projects/user/${userId}`, { ...json('POST', body), as });
  const projectCount = async () => Number((await api('/projects?per_page=1')).headers.get('x-total'));

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_create_for_user' });
    for (const name of ['alice', 'bob']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    ids.rootNamespace = (await expectJson(await api('/namespaces/root'), 200)).id;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('creates the project as the user: 201 Project, their creator_id and personal namespace, and they own it', async () => {
    const project = await expectJson(await createFor(ids.alice!, { name: 'For Alice', description: 'made by root', visibility: 'internal', merge_method: 'ff' }), 201);
    expect(project).toMatchObject({
      name: 'For Alice', path: 'for-alice', path_with_namespace: 'alice/for-alice', description: 'made by root', visibility: 'internal',
      creator_id: ids.alice, owner: { id: ids.alice, username: 'alice' }, merge_method: 'ff',
      namespace: { kind: 'user', full_path: 'alice' },
    });
    expect(project.permissions).toBeUndefined(); // the Project entity, not ProjectWithAccess

    const seen = await expectJson(await api(`/projects/${project.id}`, { as: 'alice' }), 200);
    expect(seen.permissions.project_access).toEqual({ access_level: 50, notification_level: 3 });
    const members = await expectJson(await api(`/projects/${project.id}/members`, { as: 'alice' }), 200);
    expect(members.map((m: { id: number; access_level: number }) => [m.id, m.access_level])).toEqual([[ids.alice, 50]]);
    const owned = await expectJson(await api('/projects?owned=true', { as: 'alice' }), 200);
    expect(owned.map((p: { id: number }) => p.id)).toEqual([project.id]);
    expect((await expectJson(await api('/projects?owned=true'), 200)).map((p: { id: number }) => p.id)).not.toContain(project.id);
  });

  it('puts it in a namespace_id the user may create in (a group they maintain), and refuses one they may not', async () => {
    const team = await expectJson(await api('/groups', { ...json('POST', { name: 'Team', path: 'team' }), as: 'bob' }), 201);
    await expectJson(await api(`/groups/${team.id}/members`, { ...json('POST', { user_id: ids.alice, access_level: 40 }), as: 'bob' }), 201);
    const crew = await expectJson(await api('/groups', { ...json('POST', { name: 'Crew', path: 'crew' }), as: 'bob' }), 201);
    await expectJson(await api(`/groups/${crew.id}/members`, { ...json('POST', { user_id: ids.alice, access_level: 30 }), as: 'bob' }), 201);

    const inTeam = await expectJson(await createFor(ids.alice!, { name: 'Team Work', namespace_id: team.id }), 201);
    expect(inTeam).toMatchObject({ path_with_namespace: 'team/team-work', creator_id: ids.alice, namespace: { id: team.id, kind: 'group' } });
    const before = await projectCount();
    // A group where alice is only Developer, and root's own namespace: root may create there, alice may not.
    for (const namespaceId of [crew.id, ids.rootNamespace]) {
      expect(await expectJson(await createFor(ids.alice!, { name: 'Nope', namespace_id: namespaceId }), 400)).toEqual({ message: { namespace: ['is not valid'] } });
    }
    expect(await projectCount()).toBe(before);
  });

  it("answers GitLab's errors: 401 anonymous, 400 params (before the admin check), 403 non-admin, 404 unknown user, 400 name taken", async () => {
    const before = await projectCount();
    expect(await expectJson(await createFor(ids.alice!, { name: 'x' }, null), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await expectJson(await createFor(ids.alice!, { path: 'no-name' }), 400)).toEqual({ error: 'name is missing' });
    expect(await expectJson(await createFor(ids.alice!, { path: 'no-name' }, 'bob'), 400)).toEqual({ error: 'name is missing' });
    expect(await expectJson(await createFor('abc', { name: 'x' }), 400)).toEqual({ error: 'user_id is invalid' });
    expect(await expectJson(await createFor(ids.alice!, { name: 'x', visibility: 'secret' }), 400)).toEqual({ error: 'visibility does not have a valid value' });
    expect(await expectJson(await createFor(ids.alice!, { name: 'Sneaky' }, 'bob'), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await createFor(ids.bob!, { name: 'Mine' }, 'bob'), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await createFor(987654, { name: 'Ghost' }), 404)).toEqual({ message: '404 User Not Found' });
    expect(await expectJson(await createFor(0, { name: 'Ghost' }), 404)).toEqual({ message: '404 User Not Found' });
    expect(await expectJson(await createFor(ids.alice!, { name: 'For Alice' }), 400)).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });
    expect(await projectCount()).toBe(before);
  });

  describe('the personal project limit (projects_limit; external users have none)', () => {
    const NOT_ALLOWED = 'Personal project creation is not allowed. Please contact your administrator with questions';
    const LIMIT_ONE = 'Your project limit is 1 projects! Please contact your administrator to increase it';

    beforeAll(async () => {
      for (const [name, extra] of [['capped', { projects_limit: 1 }], ['outsider', { external: true, projects_limit: 50 }]] as const) {
        const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1`, ...extra })), 201);
        ids[name] = user.id;
        tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
      }
    });

    it('refuses a personal project beyond the limit in GitLab’s three wordings (create 403, create-for-user 400, fork 409)', async () => {
      expect(await expectJson(await api(`/users/${ids.outsider}`), 200)).toMatchObject({ projects_limit: 0, can_create_group: false, external: true });
      expect(await expectJson(await api('/projects', { ...json('POST', { name: 'nope' }), as: 'outsider' }), 403)).toEqual({ error: [NOT_ALLOWED] });
      await expectJson(await api('/projects', { ...json('POST', { name: 'first' }), as: 'capped' }), 201);
      const before = await projectCount();
      expect(await expectJson(await api('/projects', { ...json('POST', { name: 'second' }), as: 'capped' }), 403)).toEqual({ error: [LIMIT_ONE] });
      expect(await expectJson(await createFor(ids.capped!, { name: 'third' }), 400)).toEqual({ message: { limit_reached: [LIMIT_ONE] } });
      const upstream = await expectJson(await api('/projects', json('POST', { name: 'limit-upstream', visibility: 'public' })), 201);
      expect(await expectJson(await api(`/projects/${upstream.id}/fork`, { method: 'POST', as: 'capped' }), 409)).toEqual({ message: [`Limit reached ${LIMIT_ONE}`] });
      expect(await expectJson(await api(`/projects/${upstream.id}/fork`, { method: 'POST', as: 'outsider' }), 409)).toEqual({ message: [`Limit reached ${NOT_ALLOWED}`] });
      expect(await projectCount()).toBe(before + 1); // only the upstream
    });

    it('does not limit projects in a group, and lifts the limit when the user is made internal', async () => {
      const group = await expectJson(await api('/groups', json('POST', { name: 'Open', path: 'open-for-capped' })), 201);
      await expectJson(await api(`/groups/${group.id}/members`, json('POST', { user_id: ids.capped, access_level: 40 })), 201);
      const inGroup = await expectJson(await api('/projects', { ...json('POST', { name: 'in-group', namespace_id: group.id }), as: 'capped' }), 201);
      // The creator of a group project is not its member: a group Maintainer is the project's Maintainer, not its Owner.
      expect((await expectJson(await api(`/projects/${inGroup.id}`, { as: 'capped' }), 200)).permissions).toEqual({
        project_access: null, group_access: { access_level: 40, notification_level: 3 },
      });
      expect(await expectJson(await api(`/projects/${inGroup.id}/members`, { as: 'capped' }), 200)).toEqual([]);
      await expectJson(await api(`/users/${ids.outsider}`, json('PUT', { external: false })), 200);
      expect(await expectJson(await api(`/users/${ids.outsider}`), 200)).toMatchObject({ projects_limit: 100000, can_create_group: true, external: false });
      await expectJson(await api('/projects', { ...json('POST', { name: 'now-allowed' }), as: 'outsider' }), 201);
    });
  });
});
