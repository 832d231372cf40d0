import { startStack, type RunningStack } from '@glp/testing';

/** The walking skeleton over HTTP: REST → gateway → gRPC → projects → PostgreSQL (+ outbox → Kafka). */
describe('projects through the gateway', () => {
  let stack: RunningStack;
  const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.token === undefined ? stack.rootToken : init.token;
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_projects' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('creates a project from a form body (curl -d name=demo) and reads it by id and by encoded path', async () => {
    const created = await api('/projects', form({ name: 'demo', description: 'A demo' }));
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/application\/json/);
    const project = await created.json();
    expect(project).toMatchObject({
      name: 'demo',
      path: 'demo',
      path_with_namespace: 'root/demo',
      name_with_namespace: 'Administrator / demo',
      description: 'A demo',
      visibility: 'private',
      archived: false,
      empty_repo: true,
      default_branch: 'main',
      namespace: { path: 'root', kind: 'user', full_path: 'root' },
      owner: { username: 'root' },
      web_url: `${stack.url}/root/demo`,
      http_url_to_repo: `${stack.url}/root/demo.git`,
      issues_access_level: 'enabled',
      merge_method: 'merge',
      import_status: 'none',
    });
    expect(typeof project.id).toBe('number');

    const byId = await api(`/projects/${project.id}`);
    expect(byId.status).toBe(200);
    expect(await byId.json()).toMatchObject({ id: project.id, path_with_namespace: 'root/demo', permissions: { project_access: { access_level: 50 } } });

    const byPath = await api('/projects/root%2Fdemo');
    expect(byPath.status).toBe(200);
    expect((await byPath.json()).id).toBe(project.id);

    const byPathOtherCase = await api('/projects/ROOT%2FDemo');
    expect((await byPathOtherCase.json()).id).toBe(project.id);
  });

  it('derives the path from a name and rejects a duplicate in the same namespace', async () => {
    const res = await api('/projects', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'My Fine Project' }) });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name: 'My Fine Project', path: 'my-fine-project' });

    const dup = await api('/projects', form({ name: 'My Fine Project' }));
    expect(dup.status).toBe(400);
    expect(await dup.json()).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });
  });

  it('answers a missing name and path with Grape\'s 400 error body', async () => {
    const res = await api('/projects', form({ description: 'nameless' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'name, path are missing, at least one parameter must be provided' });
  });

  it('rejects an invalid visibility with a 400', async () => {
    const res = await api('/projects', form({ name: 'vis', visibility: 'secret' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'visibility does not have a valid value' });
  });

  it('lists projects with GitLab pagination headers', async () => {
    for (const name of ['list-a', 'list-b', 'list-c']) {
      expect((await api('/projects', form({ name, visibility: 'public' }))).status).toBe(201);
    }
    const res = await api('/projects?per_page=2&page=1&order_by=id&sort=asc');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toHaveLength(2);
    const total = Number(res.headers.get('x-total'));
    expect(total).toBeGreaterThanOrEqual(5);
    expect(res.headers.get('x-total-pages')).toBe(String(Math.ceil(total / 2)));
    expect(res.headers.get('x-per-page')).toBe('2');
    expect(res.headers.get('x-page')).toBe('1');
    expect(res.headers.get('x-next-page')).toBe('2');
    expect(res.headers.get('x-prev-page')).toBe('');
    const link = res.headers.get('link')!;
    expect(link).toContain(`<${stack.apiUrl}/projects?order_by=id&page=2&per_page=2&sort=asc>; rel="next"`);
    expect(link).toContain('rel="first"');
    expect(link).toContain('rel="last"');
    expect(body[0].id).toBeLessThan(body[1].id);

    const page2 = await api('/projects?per_page=2&page=2&order_by=id&sort=asc');
    const ids2 = (await page2.json()).map((p: { id: number }) => p.id);
    expect(ids2[0]).toBeGreaterThan(body[1].id);
    expect(page2.headers.get('x-prev-page')).toBe('1');
  });

  it('refuses offsets beyond 50,000 with 405 and bad pagination params with 400', async () => {
    const far = await api('/projects?page=2501&per_page=20');
    expect(far.status).toBe(405);
    expect((await far.json()).error).toMatch(/^Offset pagination has a maximum allowed offset of 50000/);
    expect((await api('/projects?page=2500&per_page=20')).status).toBe(200);
    const zero = await api('/projects?per_page=0');
    expect(zero.status).toBe(400);
    expect(await zero.json()).toEqual({ error: 'per_page has a value not allowed' });
    const clamped = await api('/projects?per_page=500');
    expect(clamped.headers.get('x-per-page')).toBe('100');
  });

  it('shows anonymous callers only public projects', async () => {
    const res = await api('/projects?per_page=100', { token: null });
    expect(res.status).toBe(200);
    const names = (await res.json()).map((p: { name: string }) => p.name).sort();
    expect(names).toEqual(['list-a', 'list-b', 'list-c']);
    const hidden = await api('/projects/root%2Fdemo', { token: null });
    expect(hidden.status).toBe(404);
  });

  it('answers an unknown token with 401 and GitLab\'s body', async () => {
    const res = await api('/projects', { token: 'glpat-not-a-real-token-000' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: '401 Unauthorized' });
    const post = await api('/projects', { ...form({ name: 'x' }), token: null });
    expect(post.status).toBe(401);
    expect(await post.json()).toEqual({ message: '401 Unauthorized' });
  });

  it('enforces token scopes and admin-only routes', async () => {
    const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const user = await (await api('/users', json({ username: 'reader', name: 'Reader', email: 'reader@example.com', password: 'reader-pass-1' }))).json();
    const pat = await (await api(`/users/${user.id}/personal_access_tokens`, json({ name: 'ro', scopes: ['read_api'] }))).json();
    expect((await api('/projects', { token: pat.token })).status).toBe(200);
    const write = await api('/projects', { ...form({ name: 'nope' }), token: pat.token });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({ error: 'insufficient_scope', scope: 'api' });
    const full = await (await api(`/users/${user.id}/personal_access_tokens`, json({ name: 'rw', scopes: ['api'] }))).json();
    const notAdmin = await api('/users', { ...json({ username: 'x', name: 'x', email: 'x@example.com', password: 'xxxxxxxx1' }), token: full.token });
    expect(notAdmin.status).toBe(403);
    expect(await notAdmin.json()).toEqual({ message: '403 Forbidden' });
    expect((await api('/user', { token: full.token }).then((r) => r.json())).username).toBe('reader');
  });

  it('answers an unknown project with 404 and GitLab\'s body', async () => {
    for (const id of ['999999999', '99999999999999999999', 'root%2Fno-such-project', 'nosuchproject']) {
      const res = await api(`/projects/${id}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: '404 Project Not Found' });
    }
  });

  it('accepts the token as Bearer and as private_token, and sets X-Request-Id', async () => {
    const bearer = await fetch(`${stack.apiUrl}/user`, { headers: { Authorization: `Bearer ${stack.rootToken}` } });
    expect(bearer.status).toBe(200);
    expect(await bearer.json()).toMatchObject({ username: 'root', is_admin: true });
    expect(bearer.headers.get('x-request-id')).toBeTruthy();
    const query = await fetch(`${stack.apiUrl}/user?private_token=${stack.rootToken}`, { headers: { 'X-Request-Id': 'trace-me-1' } });
    expect(query.status).toBe(200);
    expect(query.headers.get('x-request-id')).toBe('trace-me-1');
  });

  it('serves /version, /metadata and the health endpoints', async () => {
    const version = await api('/version');
    expect(version.status).toBe(200);
    expect(await version.json()).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), revision: expect.any(String) });
    const metadata = await api('/metadata');
    expect(await metadata.json()).toMatchObject({ version: expect.any(String), kas: { enabled: false }, enterprise: false });
    for (const p of ['/-/health', '/-/liveness', '/-/readiness']) expect((await fetch(`${stack.url}${p}`)).status).toBe(200);
  });

  it('exposes Prometheus metrics of each service (gRPC handling, events)', async () => {
    const projects = await (await fetch(stack.metricsUrls.projects)).text();
    expect(projects).toMatch(/grpc_server_handling_seconds_count\{[^}]*method="\/gitlab.projects.v1.ProjectsService\/CreateProject"[^}]*code="OK"/);
    const gateway = await fetch(stack.metricsUrls.gateway);
    expect(gateway.status).toBe(200);
    expect(await gateway.text()).toContain('process_cpu_user_seconds_total');
  });

  it('publishes ProjectCreated through the outbox (the outbox drains)', async () => {
    const { Pool } = await import('pg');
    const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    try {
      const deadline = Date.now() + 15000;
      let left = -1;
      while (Date.now() < deadline) {
        left = (await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.projects}.outbox WHERE published_at IS NULL`)).rows[0].n;
        if (left === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(left).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it('shuts every service down gracefully on SIGTERM (exit code 0)', async () => {
    const codes = await stack.stop();
    expect(Object.keys(codes)).toEqual(expect.arrayContaining(['identity', 'projects', 'access-requests', 'repo-admin', 'hooks', 'webhook-dispatcher', 'gateway']));
    expect(codes).toEqual(Object.fromEntries(Object.keys(codes).map((name) => [name, 0])));
  });
});
