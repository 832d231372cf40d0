import { startStack, type RunningStack } from '@glp/testing';

/**
 * Star, unstar, starrers, archive and unarchive over HTTP (REST → gateway → projects → identity), in order: alice owns
 * the public project "alice/shiny" (bob is its Developer) and the private "alice/hidden"; carol and dave have no
 * relation to either. Every step checks status, body and what is visible afterwards.
 */
describe('project stars and archiving through the gateway', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let shiny: { id: number };
  let hidden: { id: number };

  const api = (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const post = (path: string, as: string | null | undefined) => api(path, { method: 'POST', as });
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    expect(res.headers.get('content-type')).toBe('application/json');
    return JSON.parse(text);
  };
  const expectNotModified = async (res: Response) => {
    const text = await res.text();
    if (res.status !== 304) throw new Error(`expected 304, got ${res.status}: ${text}`);
    expect(text).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
  };
  /** GitLab's UserBasic of a user created below (name upper-cased, no public e-mail, no avatar). */
  const userBasic = (name: string) => ({
    id: ids[name], username: name, public_email: null, name: name.toUpperCase(), state: 'active', locked: false, avatar_url: null,
    web_url: `${stack.url}/${name}`,
  });
  /** GET /projects/:id as the caller, without ProjectWithAccess's permissions: the `Project` entity star/archive answer. */
  const projectAs = async (id: number, as: string) => {
    const { permissions, ...project } = await expectJson(await api(`/projects/${id}`, { as }), 200);
    expect(permissions).toBeDefined();
    return project;
  };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_stars' });
    for (const name of ['alice', 'bob', 'carol', 'dave']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name: name.toUpperCase(), email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    shiny = await expectJson(await api('/projects', { ...json('POST', { name: 'shiny', visibility: 'public' }), as: 'alice' }), 201);
    hidden = await expectJson(await api('/projects', { ...json('POST', { name: 'hidden', visibility: 'private' }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${shiny.id}/members`, { ...json('POST', { user_id: ids.bob, access_level: 30 }), as: 'alice' }), 201);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('stars as the caller: 201 with the Project entity and the new star_count; starring again is an empty 304', async () => {
    const starred = await expectJson(await post(`/projects/${shiny.id}/star`, 'carol'), 201);
    expect(starred).not.toHaveProperty('permissions');
    expect(starred).toEqual(await projectAs(shiny.id, 'carol')); // the same project GET shows, star_count 1
    expect(starred).toMatchObject({ id: shiny.id, star_count: 1, archived: false, path_with_namespace: 'alice/shiny' });
    await expectNotModified(await post(`/projects/${shiny.id}/star`, 'carol'));
    expect((await expectJson(await api(`/projects/${shiny.id}`, { as: null }), 200)).star_count).toBe(1);

    expect((await expectJson(await post(`/projects/${encodeURIComponent('alice/shiny')}/star`, 'dave'), 201)).star_count).toBe(2);
    expect((await expectJson(await post(`/projects/${shiny.id}/star`, 'alice'), 201)).star_count).toBe(3);
    expect((await expectJson(await api(`/projects?order_by=star_count`, { as: 'carol' }), 200))[0]).toMatchObject({ id: shiny.id, star_count: 3 });
  });

  it('unstars: 201 with the lower star_count; unstarring a project not starred is an empty 304', async () => {
    const unstarred = await expectJson(await post(`/projects/${shiny.id}/unstar`, 'alice'), 201);
    expect(unstarred).toEqual(await projectAs(shiny.id, 'alice'));
    expect(unstarred.star_count).toBe(2);
    await expectNotModified(await post(`/projects/${shiny.id}/unstar`, 'alice'));
    await expectNotModified(await post(`/projects/${shiny.id}/unstar`, 'bob'));
    expect((await expectJson(await api(`/projects/${shiny.id}`, { as: 'bob' }), 200)).star_count).toBe(2);
  });

  it('answers 401 to anonymous stars and 404 for a project the caller cannot read', async () => {
    for (const action of ['star', 'unstar', 'archive', 'unarchive']) {
      expect(await expectJson(await post(`/projects/${shiny.id}/${action}`, null), 401)).toEqual({ message: '401 Unauthorized' });
      expect(await expectJson(await post(`/projects/${hidden.id}/${action}`, 'carol'), 404)).toEqual({ message: '404 Project Not Found' });
      expect(await expectJson(await post(`/projects/999999/${action}`, 'carol'), 404)).toEqual({ message: '404 Project Not Found' });
      expect(await expectJson(await post(`/projects/nope/${action}`, 'carol'), 404)).toEqual({ message: '404 Project Not Found' });
    }
    expect(await expectJson(await api(`/projects/${hidden.id}/starrers`, { as: null }), 404)).toEqual({ message: '404 Project Not Found' });
    expect(await expectJson(await api(`/projects/${hidden.id}/starrers`, { as: 'carol' }), 404)).toEqual({ message: '404 Project Not Found' });
    expect(await expectJson(await api(`/projects/${hidden.id}`, { as: 'alice' }), 200)).toMatchObject({ star_count: 0 });
  });

  it('lists starrers (UserStarsProject) in the order they starred, to anonymous callers too, paginated and searchable', async () => {
    const res = await api(`/projects/${shiny.id}/starrers`, { as: null });
    const starrers = await expectJson(res, 200);
    expect(starrers.map((s: { user: unknown }) => s.user)).toEqual([userBasic('carol'), userBasic('dave')]);
    for (const s of starrers) {
      expect(Object.keys(s)).toEqual(['starred_since', 'user']);
      expect(s.starred_since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(Date.parse(starrers[0].starred_since)).toBeLessThanOrEqual(Date.parse(starrers[1].starred_since));
    expect([res.headers.get('x-total'), res.headers.get('x-total-pages'), res.headers.get('x-page'), res.headers.get('x-per-page')]).toEqual(['2', '1', '1', '20']);

    const paged = await api(`/projects/${shiny.id}/starrers?per_page=1&page=2`, { as: 'bob' });
    expect((await expectJson(paged, 200)).map((s: { user: { username: string } }) => s.user.username)).toEqual(['dave']);
    expect([paged.headers.get('x-total'), paged.headers.get('x-prev-page'), paged.headers.get('x-next-page')]).toEqual(['2', '1', '']);
    // (GitLab also puts the route's `id` in these links; pageResult, shared by every listing, leaves it out for now)
    expect(paged.headers.get('link')).toMatch(new RegExp(`^<${stack.apiUrl}/projects/${shiny.id}/starrers\\?(id=${shiny.id}&)?page=1&per_page=1>; rel="prev", `));

    const search = async (q: string) =>
      (await expectJson(await api(`/projects/${shiny.id}/starrers?search=${encodeURIComponent(q)}`, { as: 'carol' }), 200)).map((s: { user: { username: string } }) => s.user.username);
    expect(await search('car')).toEqual(['carol']);
    expect(await search('@DAVE')).toEqual(['dave']);
    expect(await search('a')).toEqual(['carol', 'dave']);
    expect(await search('zed')).toEqual([]);
    expect(await expectJson(await api(`/projects/${shiny.id}/starrers?per_page=0`, { as: 'carol' }), 400)).toEqual({ error: 'per_page has a value not allowed' });
    expect(await expectJson(await api(`/projects/${shiny.id}/starrers?page=99999999999`, { as: 'carol' }), 400)).toEqual({ error: 'page is invalid' });
  });

  it('archives and unarchives for the Owner (201 Project), idempotently; a Developer gets 403', async () => {
    expect(await expectJson(await post(`/projects/${shiny.id}/archive`, 'bob'), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await post(`/projects/${shiny.id}/archive`, 'carol'), 403)).toEqual({ message: '403 Forbidden' });
    expect((await projectAs(shiny.id, 'bob')).archived).toBe(false);

    const archived = await expectJson(await post(`/projects/${shiny.id}/archive`, 'alice'), 201);
    expect(archived).not.toHaveProperty('permissions');
    expect(archived).toMatchObject({ id: shiny.id, archived: true, star_count: 2 });
    expect(archived).toEqual(await projectAs(shiny.id, 'alice'));
    expect(await expectJson(await post(`/projects/${shiny.id}/archive`, 'alice'), 201)).toEqual(archived); // unchanged
    expect((await expectJson(await api(`/projects/${shiny.id}`, { as: null }), 200))).not.toHaveProperty('archived'); // anonymous: ProjectDetails
    expect((await expectJson(await api('/projects?archived=true', { as: 'carol' }), 200)).map((p: { id: number }) => p.id)).toEqual([shiny.id]);
    expect((await expectJson(await api('/projects?archived=false', { as: 'alice' }), 200)).map((p: { id: number }) => p.id)).toEqual([hidden.id]);
    // an archived project is still starred and listed
    expect((await expectJson(await post(`/projects/${shiny.id}/star`, 'bob'), 201))).toMatchObject({ archived: true, star_count: 3 });

    const unarchived = await expectJson(await post(`/projects/${shiny.id}/unarchive`, 'alice'), 201);
    expect(unarchived).toMatchObject({ archived: false });
    expect(await expectJson(await post(`/projects/${shiny.id}/unarchive`, 'alice'), 201)).toEqual(unarchived);
    // administrators archive any project
    expect(await expectJson(await post(`/projects/${hidden.id}/archive`, undefined), 201)).toMatchObject({ id: hidden.id, archived: true });
    expect((await projectAs(hidden.id, 'alice')).archived).toBe(true);
  });
});
