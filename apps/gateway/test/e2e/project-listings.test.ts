import { eventually, startStack, type RunningStack } from '@glp/testing';

/** Project listings over HTTP: the new GET /projects filters, keyset pagination and the user listings. */
describe('project listings', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const userIds: Record<string, number> = {};
  const ids: Record<string, number> = {};
  const api = (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(path.startsWith('http') ? path : `${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const body = await res.json();
    expect({ status: res.status, body }).toMatchObject({ status });
    return body;
  };
  const names = async (path: string, as?: string | null) => (await expectJson(await api(path, { as }), 200)).map((p: { name: string }) => p.name);

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_listings' });
    for (const name of ['lsalice', 'lsbob']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name: `${name} Person`, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      userIds[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    const make = async (as: string, name: string, extra: Record<string, unknown> = {}) => {
      ids[name] = (await expectJson(await api('/projects', { ...json('POST', { name, visibility: 'public', ...extra }), as }), 201)).id;
    };
    await make('lsalice', 'lsx-alpha', { issues_access_level: 'disabled' });
    await make('lsalice', 'lsx-beta', { merge_requests_access_level: 'private', description: 'beta things' });
    await make('lsalice', 'lsx-secret', { visibility: 'private' });
    await make('lsbob', 'lsx-gamma');
    for (let i = 1; i <= 5; i += 1) await make('lsbob', `ksx-${i}`);
    await expectJson(await api(`/projects/${ids['lsx-alpha']}/star`, { method: 'POST', as: 'lsbob' }), 201);
    await expectJson(await api(`/projects/${ids['lsx-gamma']}/star`, { method: 'POST', as: 'lsbob' }), 201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  describe('GET /projects filters', () => {
    it('starred: the caller\'s starred projects', async () => {
      expect(await names('/projects?starred=true&order_by=id&sort=asc', 'lsbob')).toEqual(['lsx-alpha', 'lsx-gamma']);
      expect(await names('/projects?starred=true', 'lsalice')).toEqual([]);
    });

    it('last_activity_after / last_activity_before (ISO 8601)', async () => {
      const before = new Date(Date.now() - 3600_000).toISOString();
      const after = new Date(Date.now() + 3600_000).toISOString();
      expect(await names(`/projects?search=lsx&last_activity_after=${before}&order_by=id&sort=asc`)).toEqual(['lsx-alpha', 'lsx-beta', 'lsx-secret', 'lsx-gamma']);
      expect(await names(`/projects?search=lsx&last_activity_after=${after}`)).toEqual([]);
      expect(await names(`/projects?search=lsx&last_activity_before=${before}`)).toEqual([]);
      const bad = await api('/projects?last_activity_after=yesterday-ish');
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: 'last_activity_after is invalid' });
    });

    it('with_issues_enabled / with_merge_requests_enabled', async () => {
      expect(await names('/projects?search=lsx&with_issues_enabled=true&order_by=id&sort=asc', 'lsbob')).toEqual(['lsx-beta', 'lsx-gamma']);
      expect(await names('/projects?search=lsx&with_merge_requests_enabled=true&order_by=id&sort=asc', 'lsbob')).toEqual(['lsx-alpha', 'lsx-gamma']);
      expect(await names('/projects?search=lsx&with_merge_requests_enabled=true&order_by=id&sort=asc', 'lsalice')).toEqual(['lsx-alpha', 'lsx-beta', 'lsx-secret', 'lsx-gamma']);
    });

    it('search_namespaces matches the namespace path', async () => {
      expect(await names('/projects?search=lsalice')).toEqual([]);
      expect(await names('/projects?search=lsalice&search_namespaces=true&order_by=id&sort=asc')).toEqual(['lsx-alpha', 'lsx-beta', 'lsx-secret']);
      expect(await names('/projects?search=lsbob/lsx&search_namespaces=true')).toEqual(['lsx-gamma']);
    });

    it('order_by=similarity ranks among the caller\'s projects when searching; otherwise the default ordering', async () => {
      expect(await names('/projects?search=lsx-beta&order_by=similarity', 'lsalice')).toEqual(['lsx-beta']);
      expect(await names('/projects?search=lsx&order_by=similarity', 'lsalice')).toHaveLength(3);
      expect(await names('/projects?search=lsx&order_by=similarity', null)).toEqual(['lsx-gamma', 'lsx-beta', 'lsx-alpha']);
    });

    it('statistics only for Reporters+ (here: the administrator, not a stranger), with_programming_language matches nothing, repository_storage for admins', async () => {
      const withStats = await expectJson(await api(`/projects?search=lsx-gamma&statistics=true`), 200);
      expect(withStats).toHaveLength(1);
      expect(withStats[0]).toHaveProperty('statistics.storage_size', expect.any(Number)); // repo-admin measures the new repository
      expect((await expectJson(await api(`/projects?search=lsx-gamma&statistics=true`, { as: 'lsalice' }), 200))[0]).not.toHaveProperty('statistics');
      expect(await names('/projects?with_programming_language=Ruby')).toEqual([]);
      expect(await names('/projects?with_programming_language=')).toEqual([]);
      expect(await names('/projects?search=lsx&repository_storage=default')).toHaveLength(4);
      expect(await names('/projects?search=lsx&repository_storage=elsewhere')).toEqual([]);
      expect(await names('/projects?search=lsx&repository_storage=elsewhere', 'lsbob')).toHaveLength(3);
    });
  });

  describe('keyset pagination', () => {
    it('pages by id with only a Link rel="next", sent only while rows follow (no empty page after a short last one)', async () => {
      const seen: string[] = [];
      let url: string | undefined = `${stack.apiUrl}/projects?pagination=keyset&order_by=id&sort=asc&per_page=2&search=ksx`;
      const sizes: number[] = [];
      while (url) {
        const res = await api(url);
        expect(res.status).toBe(200);
        for (const h of ['x-total', 'x-total-pages', 'x-page', 'x-next-page', 'x-per-page', 'x-prev-page']) expect(res.headers.get(h)).toBeNull();
        const page = await res.json();
        sizes.push(page.length);
        seen.push(...page.map((p: { name: string }) => p.name));
        const link = res.headers.get('link');
        if (sizes.length < 3) expect(link).toMatch(/^<[^>]+>; rel="next"$/);
        else expect(link).toBeNull();
        url = link ? /^<([^>]+)>/.exec(link)![1] : undefined;
      }
      expect(sizes).toEqual([2, 2, 1]);
      expect(seen).toEqual(['ksx-1', 'ksx-2', 'ksx-3', 'ksx-4', 'ksx-5']);
    });

    it('descends with id_before by default sort and keeps the original query', async () => {
      const res = await api('/projects?pagination=keyset&order_by=id&per_page=2&search=ksx');
      expect((await res.json()).map((p: { name: string }) => p.name)).toEqual(['ksx-5', 'ksx-4']);
      expect(res.headers.get('link')).toBe(`<${stack.apiUrl}/projects?id_before=${ids['ksx-4']}&order_by=id&pagination=keyset&per_page=2&search=ksx>; rel="next"`);
    });

    it('refuses other orderings (the default created_at included) with a 405', async () => {
      for (const q of ['pagination=keyset', 'pagination=keyset&order_by=name', 'pagination=keyset&order_by=created_at&sort=asc', 'pagination=keyset&order_by=similarity&search=ksx']) {
        const res = await api(`/projects?${q}`);
        expect(res.status).toBe(405);
        expect(await res.json()).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });
      }
      const offset = await api('/projects?page=2501&per_page=20');
      expect(offset.status).toBe(405);
    });
  });

  // The gateway keeps each listed project's JSON by its protobuf bytes and how it is shown (presented-json-cache.ts):
  // the same page again must follow every change, and each caller must get their own view of the same project.
  describe('listing the same page again', () => {
    const page = async (as?: string | null, query = 'search=lsx-beta') => {
      const res = await api(`/projects?${query}`, { as });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      const text = await res.text();
      expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
      return JSON.parse(text) as Array<Record<string, any>>;
    };

    it('shows a project as changed since the last listing, and as it was again once changed back', async () => {
      const before = await page('lsalice');
      expect(before.map((p) => p.description)).toEqual(['beta things']);
      await expectJson(await api(`/projects/${ids['lsx-beta']}`, { ...json('PUT', { description: 'beta, edited' }), as: 'lsalice' }), 200);
      const after = await page('lsalice');
      expect(after.map((p) => p.description)).toEqual(['beta, edited']);
      expect(after[0]!.last_activity_at >= before[0]!.last_activity_at).toBe(true);
      await expectJson(await api(`/projects/${ids['lsx-beta']}/star`, { method: 'POST', as: 'lsbob' }), 201);
      expect((await page('lsalice'))[0]!.star_count).toBe(1);
      await expectJson(await api(`/projects/${ids['lsx-beta']}/unstar`, { method: 'POST', as: 'lsbob' }), 201);
      expect((await page('lsalice'))[0]!.star_count).toBe(0);
      await expectJson(await api(`/projects/${ids['lsx-beta']}`, { ...json('PUT', { description: 'beta things' }), as: 'lsalice' }), 200);
      expect((await page('lsalice')).map((p) => p.description)).toEqual(['beta things']);
    });

    it('gives each caller their own view of the same project, however often each asks', async () => {
      for (let round = 0; round < 2; round += 1) {
        const [owner, other, anonymous, admin, simple] = await Promise.all([
          page('lsalice'), page('lsbob'), page(null), page(undefined), page('lsalice', 'search=lsx-beta&simple=true'),
        ]);
        expect(owner[0]!.permissions).toEqual({ project_access: { access_level: 50, notification_level: 3 }, group_access: null });
        expect(other[0]!.permissions).toEqual({ project_access: null, group_access: null });
        expect(admin[0]!.permissions).toEqual({ project_access: null, group_access: null });
        // ProjectWithAccess for signed-in callers; BasicProjectDetails for anonymous ones and `simple=true`.
        expect(anonymous[0]).not.toHaveProperty('permissions');
        expect(anonymous[0]).not.toHaveProperty('merge_requests_access_level');
        expect(simple[0]).toEqual(anonymous[0]);
        // Settings a maintainer (or an administrator) is shown, and nobody else.
        expect(owner[0]!.runners_token).toEqual(expect.any(String));
        expect(admin[0]!.runners_token).toBe(owner[0]!.runners_token);
        expect(other[0]).not.toHaveProperty('runners_token');
      }
    });

    it('serves a page listed again from the kept JSON, and each project of GET /projects/:id too', async () => {
      const counted = async () => {
        const text = await (await fetch(stack.metricsUrls.gateway)).text();
        const value = (result: string) => Number(text.match(new RegExp(`^glp_gateway_presented_json_total\\{result="${result}"[^}]*\\} (\\d+)`, 'm'))?.[1] ?? 0);
        return { hit: value('hit'), miss: value('miss') };
      };
      // repo-admin reports each new repository a moment after its project is created (a change of the project): wait
      // until the page no longer changes.
      let last = '';
      await eventually(async () => {
        const now = JSON.stringify(await page('lsbob', 'search=ksx&order_by=id&sort=asc'));
        const same = now === last;
        last = now;
        return same;
      }, 30_000, 200);
      expect(JSON.parse(last)).toHaveLength(5);
      const before = await counted();
      await page('lsbob', 'search=ksx&order_by=id&sort=asc');
      const after = await counted();
      expect(after).toEqual({ hit: before.hit + 5, miss: before.miss });
      const one = await api(`/projects/${ids['ksx-1']}`, { as: 'lsbob' });
      expect(one.status).toBe(200);
      const again = await api(`/projects/${ids['ksx-1']}`, { as: 'lsbob' });
      expect(await again.text()).toBe(await one.text());
      expect((await counted()).hit).toBe(after.hit + 1);
    });

    it('answers HEAD with the page\'s headers and length, and no body', async () => {
      const get = await api('/projects?search=lsx&order_by=id&sort=asc&per_page=2');
      const head = await api('/projects?search=lsx&order_by=id&sort=asc&per_page=2', { method: 'HEAD' });
      expect(head.status).toBe(200);
      for (const h of ['content-length', 'x-total', 'x-total-pages', 'link']) expect(head.headers.get(h)).toBe(get.headers.get(h));
      expect(await head.text()).toBe('');
      expect(Number(get.headers.get('content-length'))).toBe(Buffer.byteLength(await get.text()));
    });
  });

  describe('user listings', () => {
    it('GET /users/:user_id/projects by id or username: the personal namespace, as the caller may see it', async () => {
      expect(await names(`/users/${userIds.lsalice}/projects?order_by=id&sort=asc`)).toEqual(['lsx-alpha', 'lsx-beta', 'lsx-secret']);
      expect(await names('/users/lsalice/projects?order_by=id&sort=asc', 'lsbob')).toEqual(['lsx-alpha', 'lsx-beta']);
      expect(await names('/users/lsalice/projects', null)).toEqual(['lsx-beta', 'lsx-alpha']);
      expect(await names('/users/lsalice/projects?search=beta')).toEqual(['lsx-beta']);
      const res = await api('/users/lsalice/projects?per_page=1');
      expect(res.headers.get('x-total')).toBe('3');
    });

    it('GET /users/:user_id/starred_projects: that user\'s stars visible to the caller', async () => {
      expect(await names(`/users/${userIds.lsbob}/starred_projects?order_by=id&sort=asc`, 'lsalice')).toEqual(['lsx-alpha', 'lsx-gamma']);
      expect(await names('/users/lsbob/starred_projects?search=gamma', null)).toEqual(['lsx-gamma']);
      expect(await names('/users/lsalice/starred_projects')).toEqual([]);
    });

    it('answers 404 User Not Found for an unknown user', async () => {
      for (const path of ['/users/nobody-here/projects', '/users/999999/starred_projects', '/users/99999999999999999999/projects']) {
        const res = await api(path);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ message: '404 User Not Found' });
      }
    });
  });
});
