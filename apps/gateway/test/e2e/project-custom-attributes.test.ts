import { createPool, type Pool } from '@glp/db';
import { infraFromEnv, startStack, type RunningStack } from '@glp/testing';

/**
 * Project custom attributes over HTTP (GitLab `lib/api/custom_attributes_endpoints.rb`, `custom_attributes_filter.rb`,
 * `helpers/custom_attributes.rb`): administrators only; GitLab's order of checks (401 anonymous writes, Grape's 400s,
 * 404 for a missing project, then 403); the listing filter and `with_custom_attributes`.
 */
describe('project custom attributes through the gateway', () => {
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
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return JSON.parse(text);
  };
  const put = (project: number | string, key: string, value: unknown, as?: string | null) =>
    api(`/projects/${project}/custom_attributes/${key}`, { ...json('PUT', { value }), as });
  const stored = async (projectId: number) =>
    (await db.query('SELECT key, value FROM project_custom_attributes WHERE project_id = $1 ORDER BY key', [projectId])).rows;
  const FORBIDDEN = { message: '403 Forbidden' };
  const NOT_FOUND = { message: '404 Not Found' };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_custom_attrs' });
    db = createPool({ url: infraFromEnv().databaseUrl, schema: stack.schemas.projects, max: 1 });
    for (const name of ['alice', 'bob']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    for (const [name, visibility] of [['red', 'public'], ['blue', 'public'], ['plain', 'public'], ['hidden', 'private']] as const) {
      ids[name] = (await expectJson(await api('/projects', { ...json('POST', { name, visibility }), as: 'alice' }), 201)).id;
    }
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('lets administrators create, update, list (by key), read and delete attributes, with GitLab bodies and statuses', async () => {
    expect(await expectJson(await put(ids.red!, 'zone', 'eu'), 200)).toEqual({ key: 'zone', value: 'eu' });
    expect(await expectJson(await put(ids.red!, 'color', 'red'), 200)).toEqual({ key: 'color', value: 'red' });
    expect(await expectJson(await put(ids.red!, 'zone', 'us'), 200)).toEqual({ key: 'zone', value: 'us' });
    expect(await stored(ids.red!)).toEqual([{ key: 'color', value: 'red' }, { key: 'zone', value: 'us' }]);

    expect(await expectJson(await api(`/projects/${ids.red}/custom_attributes`), 200)).toEqual([{ key: 'color', value: 'red' }, { key: 'zone', value: 'us' }]);
    expect(await expectJson(await api(`/projects/${encodeURIComponent('alice/red')}/custom_attributes/zone`), 200)).toEqual({ key: 'zone', value: 'us' });
    expect(await expectJson(await api(`/projects/${ids.plain}/custom_attributes`), 200)).toEqual([]);

    const deleted = await api(`/projects/${ids.red}/custom_attributes/zone`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect(await stored(ids.red!)).toEqual([{ key: 'color', value: 'red' }]);
    expect(await expectJson(await api(`/projects/${ids.red}/custom_attributes/zone`, { method: 'DELETE' }), 404)).toEqual({ message: '404 Custom attribute Not Found' });
    expect(await expectJson(await api(`/projects/${ids.red}/custom_attributes/zone`), 404)).toEqual({ message: '404 Not found' });

    // An administrator may manage a project hidden from everyone else.
    expect(await expectJson(await put(ids.hidden!, 'secret', 'yes'), 200)).toEqual({ key: 'secret', value: 'yes' });
  });

  it("validates PUT like Grape and the model: value required (400 error), blank refused (400 full messages), a number taken as a string", async () => {
    expect(await expectJson(await api(`/projects/${ids.red}/custom_attributes/color`, { method: 'PUT' }), 400)).toEqual({ error: 'value is missing' });
    expect(await expectJson(await put(ids.red!, 'color', ''), 400)).toEqual({ message: ["Value can't be blank"] });
    expect(await expectJson(await put(ids.red!, '%20', ' '), 400)).toEqual({ message: ["Key can't be blank", "Value can't be blank"] });
    expect(await expectJson(await put(ids.red!, 'count', 3), 200)).toEqual({ key: 'count', value: '3' });
    expect(await stored(ids.red!)).toEqual([{ key: 'color', value: 'red' }, { key: 'count', value: '3' }]);
    // Grape validates before the permission check: a non-administrator gets the 400 too.
    expect(await expectJson(await api(`/projects/${ids.red}/custom_attributes/color`, { method: 'PUT', as: 'alice' }), 400)).toEqual({ error: 'value is missing' });
  });

  it('refuses non-administrators (403, the owner included, hidden projects too) and anonymous callers (401 writes, 403 reads)', async () => {
    for (const as of ['alice', 'bob']) {
      for (const project of [ids.red, ids.hidden]) {
        expect(await expectJson(await api(`/projects/${project}/custom_attributes`, { as }), 403)).toEqual(FORBIDDEN);
        expect(await expectJson(await api(`/projects/${project}/custom_attributes/color`, { as }), 403)).toEqual(FORBIDDEN);
        expect(await expectJson(await put(project!, 'color', 'green', as), 403)).toEqual(FORBIDDEN);
        expect(await expectJson(await api(`/projects/${project}/custom_attributes/color`, { method: 'DELETE', as }), 403)).toEqual(FORBIDDEN);
      }
    }
    expect(await expectJson(await api(`/projects/${ids.red}/custom_attributes`, { as: null }), 403)).toEqual(FORBIDDEN);
    expect(await expectJson(await api(`/projects/${ids.red}/custom_attributes/color`, { as: null }), 403)).toEqual(FORBIDDEN);
    expect(await expectJson(await put(ids.red!, 'color', 'green', null), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await expectJson(await api(`/projects/${ids.red}/custom_attributes/color`, { method: 'DELETE', as: null }), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await stored(ids.red!)).toEqual([{ key: 'color', value: 'red' }, { key: 'count', value: '3' }]);
  });

  it("answers 404 Not Found for a missing project before any permission check (GitLab's find_project + not_found!)", async () => {
    for (const as of [undefined, 'alice', null]) {
      expect(await expectJson(await api('/projects/999999/custom_attributes', { as }), 404)).toEqual(NOT_FOUND);
      expect(await expectJson(await api(`/projects/${encodeURIComponent('alice/nope')}/custom_attributes/k`, { as }), 404)).toEqual(NOT_FOUND);
      expect(await expectJson(await api('/projects/not-a-path/custom_attributes', { as }), 404)).toEqual(NOT_FOUND);
    }
    expect(await expectJson(await put(999999, 'k', 'v'), 404)).toEqual(NOT_FOUND);
    expect(await expectJson(await put(999999, 'k', 'v', 'alice'), 404)).toEqual(NOT_FOUND);
    expect(await expectJson(await api('/projects/999999/custom_attributes/k', { method: 'DELETE' }), 404)).toEqual(NOT_FOUND);
  });

  it('filters listings by custom_attributes[key]=value for administrators (every pair must match) and ignores it for others', async () => {
    await expectJson(await put(ids.blue!, 'color', 'blue'), 200);
    await expectJson(await put(ids.blue!, 'size', 'xl'), 200);
    await expectJson(await put(ids.plain!, 'size', 'xl'), 200);
    const listed = async (query: string, as?: string | null) => (await expectJson(await api(`/projects?order_by=id&sort=asc&${query}`, { as }), 200)).map((p: { id: number }) => p.id);

    expect(await listed('custom_attributes[size]=xl')).toEqual([ids.blue, ids.plain]);
    expect(await listed('custom_attributes[size]=xl&custom_attributes[color]=blue')).toEqual([ids.blue]);
    expect(await listed(`custom_attributes[color]=${encodeURIComponent('blue')}&custom_attributes[size]=s`)).toEqual([]);
    const counted = await api('/projects?custom_attributes[size]=xl');
    expect(counted.headers.get('x-total')).toBe('2');
    expect(await listed('custom_attributes[size]=xl', 'alice')).toEqual([ids.red, ids.blue, ids.plain, ids.hidden]);
    expect(await listed('custom_attributes[size]=xl', null)).toEqual([ids.red, ids.blue, ids.plain]);
    // The user listings share the filter.
    expect((await expectJson(await api(`/users/${ids.alice}/projects?custom_attributes[color]=blue`), 200)).map((p: { id: number }) => p.id)).toEqual([ids.blue]);
    expect(await expectJson(await api('/projects?custom_attributes=size'), 400)).toEqual({ error: 'custom_attributes is invalid' });
  });

  it('shows custom_attributes with with_custom_attributes=true to administrators only, on listings (simple too) and single projects', async () => {
    const byId = (list: { id: number; custom_attributes?: unknown }[]) => new Map(list.map((p) => [p.id, p.custom_attributes]));
    const full = byId(await expectJson(await api('/projects?with_custom_attributes=true'), 200));
    expect(full.get(ids.blue!)).toEqual([{ key: 'color', value: 'blue' }, { key: 'size', value: 'xl' }]);
    expect(full.get(ids.plain!)).toEqual([{ key: 'size', value: 'xl' }]);
    expect(full.get(ids.hidden!)).toEqual([{ key: 'secret', value: 'yes' }]);
    const simple = byId(await expectJson(await api('/projects?simple=true&with_custom_attributes=true&custom_attributes[color]=blue'), 200));
    expect([...simple]).toEqual([[ids.blue, [{ key: 'color', value: 'blue' }, { key: 'size', value: 'xl' }]]]);
    const users = byId(await expectJson(await api(`/users/${ids.alice}/projects?with_custom_attributes=true`), 200));
    expect(users.get(ids.plain!)).toEqual([{ key: 'size', value: 'xl' }]);

    for (const [query, as] of [['', undefined], ['?with_custom_attributes=false', undefined], ['?with_custom_attributes=true', 'alice'], ['?with_custom_attributes=true', null]] as const) {
      const list = await expectJson(await api(`/projects${query}`, { as }), 200);
      expect(list.length).toBeGreaterThan(0);
      expect(list.filter((p: object) => 'custom_attributes' in p)).toEqual([]);
    }

    const one = await expectJson(await api(`/projects/${ids.blue}?with_custom_attributes=true`), 200);
    expect(one.custom_attributes).toEqual([{ key: 'color', value: 'blue' }, { key: 'size', value: 'xl' }]);
    expect(Object.keys(one).indexOf('custom_attributes')).toBe(Object.keys(one).indexOf('namespace') + 1); // BasicProjectDetails order
    expect(await expectJson(await api(`/projects/${ids.red}?with_custom_attributes=true`), 200)).toMatchObject({ custom_attributes: [{ key: 'color', value: 'red' }, { key: 'count', value: '3' }] });
    expect('custom_attributes' in (await expectJson(await api(`/projects/${ids.blue}`), 200))).toBe(false);
    expect('custom_attributes' in (await expectJson(await api(`/projects/${ids.blue}?with_custom_attributes=true`, { as: 'alice' }), 200))).toBe(false);
    expect('custom_attributes' in (await expectJson(await api(`/projects/${ids.blue}?with_custom_attributes=true`, { as: null }), 200))).toBe(false);
  });

  it("removes a project's attributes with the project", async () => {
    const doomed = (await expectJson(await api('/projects', { ...json('POST', { name: 'doomed' }), as: 'alice' }), 201)).id;
    await expectJson(await put(doomed, 'k', 'v'), 200);
    expect(await stored(doomed)).toEqual([{ key: 'k', value: 'v' }]);
    await expectJson(await api(`/projects/${doomed}`, { method: 'DELETE', as: 'alice' }), 202);
    // Only marked for deletion (GitLab 18): the project and its attributes stay until it is removed for good.
    expect(await stored(doomed)).toEqual([{ key: 'k', value: 'v' }]);
    const fullPath = encodeURIComponent(`alice/doomed-deletion_scheduled-${doomed}`);
    await expectJson(await api(`/projects/${doomed}?permanently_remove=true&full_path=${fullPath}`, { method: 'DELETE', as: 'alice' }), 202);
    expect(await stored(doomed)).toEqual([]);
    expect(await expectJson(await api(`/projects/${doomed}/custom_attributes`), 404)).toEqual(NOT_FOUND);
  });
});
