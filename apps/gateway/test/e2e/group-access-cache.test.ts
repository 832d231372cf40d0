import { startStack, type RunningStack } from '@glp/testing';

/**
 * projects keeps each user's group levels between requests (cache/group-access-cache.ts) and identity says, after each
 * commit and before it answers, whose levels changed. Through the gateway, a change of group membership is seen by the
 * very next request: added, changed and removed memberships, a subgroup its ancestors' members inherit, a group its
 * creator owns. The stack keeps levels for 10 minutes, so a change that identity did not announce would show here as
 * a stale answer, not be hidden by the TTL.
 */
describe('group levels kept by projects, changed by identity', () => {
  let stack: RunningStack;
  let umaToken = '';
  let umaId = 0;
  let group: { id: number; full_path: string };
  let project: { id: number };

  const api = (path: string, init: RequestInit & { as?: 'uma' } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('PRIVATE-TOKEN', init.as === 'uma' ? umaToken : stack.rootToken);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  /** projects' group level look-ups answered from what it kept. */
  const keptLookups = async () => {
    const text = await (await fetch(stack.metricsUrls.projects)).text();
    return Number(/^glp_projects_group_access_lookups_total\{result="hit"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
  };
  const umaReads = async (id: number) => {
    const res = await api(`/projects/${id}`, { as: 'uma' });
    if (res.status !== 200) return res.status;
    const body = (await res.json()) as { permissions: { group_access: { access_level: number } | null } };
    return body.permissions.group_access?.access_level;
  };
  const umaMemberOf = async () => (await expectJson(await api('/projects?membership=true&simple=true', { as: 'uma' }), 200)).map((p: { id: number }) => p.id);

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_group_access', env: { GROUP_ACCESS_CACHE_TTL_MS: '600000' } });
    const user = await expectJson(await api('/users', json('POST', { username: 'uma', name: 'Uma', email: 'uma@example.com', password: 'uma-password-1' })), 201);
    umaId = user.id;
    umaToken = (await expectJson(await api(`/users/${umaId}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    group = await expectJson(await api('/groups', json('POST', { name: 'Kept', path: 'kept', visibility: 'private' })), 201);
    project = await expectJson(await api('/projects', json('POST', { name: 'secret', namespace_id: group.id, visibility: 'private' })), 201);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("keeps a user's levels between requests", async () => {
    expect(await umaReads(project.id)).toBe(404);
    const before = await keptLookups();
    for (let i = 0; i < 5; i++) expect(await umaReads(project.id)).toBe(404);
    expect(await keptLookups()).toBeGreaterThanOrEqual(before + 5);
  });

  it('sees a membership added, changed and removed on the very next request, every time', async () => {
    for (let round = 0; round < 5; round++) {
      await expectJson(await api(`/groups/${group.id}/members`, json('POST', { user_id: umaId, access_level: 20 })), 201);
      expect(await umaReads(project.id)).toBe(20);
      expect(await umaMemberOf()).toContain(project.id);

      await expectJson(await api(`/groups/${group.id}/members/${umaId}`, json('PUT', { access_level: 40 })), 200);
      expect(await umaReads(project.id)).toBe(40);

      await expectJson(await api(`/groups/${group.id}/members/${umaId}`, { method: 'DELETE' }), 204);
      expect(await umaReads(project.id)).toBe(404);
      expect(await umaMemberOf()).not.toContain(project.id);
    }
  });

  it("sees a new subgroup inherited from the parent's membership at once", async () => {
    await expectJson(await api(`/groups/${group.id}/members`, json('POST', { user_id: umaId, access_level: 30 })), 201);
    expect(await umaReads(project.id)).toBe(30); // uma's levels, kept without the subgroup
    const sub = await expectJson(await api('/groups', json('POST', { name: 'Sub', path: 'sub', parent_id: group.id, visibility: 'private' })), 201);
    const inSub = await expectJson(await api('/projects', json('POST', { name: 'deeper', namespace_id: sub.id, visibility: 'private' })), 201);
    expect(await umaReads(inSub.id)).toBe(30);
  });

  it('lets the creator of a group use it at once', async () => {
    expect(await umaReads(project.id)).toBe(30);
    const own = await expectJson(await api('/groups', { ...json('POST', { name: 'Umas', path: 'umas', visibility: 'private' }), as: 'uma' }), 201);
    const made = await expectJson(await api('/projects', { ...json('POST', { name: 'mine', namespace_id: own.id }), as: 'uma' }), 201);
    expect(await umaReads(made.id)).toBe(50);
  });
});
