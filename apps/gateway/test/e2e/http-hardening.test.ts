import { connect } from 'node:net';
import { Pool } from 'pg';
import { startStack, type RunningStack } from '@glp/testing';

/**
 * GitLab's wire conventions and refusals over HTTP: malformed strings (HandleMalformedStrings), int32 params,
 * multipart bodies, exact `Content-Type: application/json`, HEAD on GET routes. BODY_LIMIT is small here so the
 * 413 is cheap to reach.
 */
describe('HTTP hardening and wire conventions', () => {
  let stack: RunningStack;
  let pool: Pool;
  const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.token === undefined ? stack.rootToken : init.token;
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (body: unknown, method = 'POST') => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const form = (body: string) => ({ method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
  const count = async (table: 'projects' | 'users') => {
    const schema = table === 'projects' ? stack.schemas.projects : stack.schemas.identity;
    return (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.${table}`)).rows[0]!.n;
  };
  const body = async (res: Response) => (await res.json()) as { id: number; description: string; error: string };
  const expectBadRequest = async (res: Response) => {
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(await res.text()).toBe('Bad Request');
  };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_hardening', env: { BODY_LIMIT: '64kb' } });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('answers a malformed percent-encoding in the path with 400 Bad Request (was a 500)', async () => {
    await expectBadRequest(await api('/projects/%E0%A4%A'));
    await expectBadRequest(await api('/projects/root%2Fdemo%C0'));
    await expectBadRequest(await fetch(`${stack.url}/-/health%E0`)); // before any route, as GitLab's Rack middleware
  });

  it('answers int32 params beyond 2^31 with Grape\'s 400 "<param> is invalid" and creates nothing (were 500s)', async () => {
    const [projects, users] = [await count('projects'), await count('users')];
    for (const [body, error] of [
      ['name=big-timeout&build_timeout=99999999999', 'build_timeout is invalid'],
      ['name=big-depth&ci_default_git_depth=3000000000', 'ci_default_git_depth is invalid'],
      ['name=big-both&build_timeout=-2147483649&ci_default_git_depth=2147483648', 'build_timeout is invalid, ci_default_git_depth is invalid'],
    ]) {
      const res = await api('/projects', form(body!));
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ error });
    }
    const user = await api('/users', json({ username: 'biglimit', name: 'Big', email: 'big@example.com', password: 'big-pass-1234', projects_limit: 99999999999 }));
    expect(user.status).toBe(400);
    expect(await user.json()).toEqual({ error: 'projects_limit is invalid' });
    const page = await api('/projects?per_page=4294967296');
    expect([page.status, await page.json()]).toEqual([400, { error: 'per_page is invalid' }]);
    expect([await count('projects'), await count('users')]).toEqual([projects, users]);

    const inRange = await api('/projects', form('name=ok-timeout&build_timeout=7200&ci_default_git_depth=50'));
    expect(inRange.status).toBe(201);
    expect(await inRange.json()).toMatchObject({ build_timeout: 7200, ci_default_git_depth: 50 });
  });

  it('refuses NUL bytes and text that is not UTF-8 anywhere (path, query, JSON, form, multipart, credentials) before any route', async () => {
    const projects = await count('projects');
    await expectBadRequest(await api('/projects?search=a%00b')); // was a 500 from PostgreSQL
    await expectBadRequest(await api('/projects/root%2Fa%00b'));
    await expectBadRequest(await api('/projects?search=100%')); // a malformed query string
    await expectBadRequest(await api('/projects', json({ name: 'nul\u0000name' })));
    await expectBadRequest(await api('/projects', json({ name: 'ok', topics: ['a', 'b\u0000'] })));
    await expectBadRequest(await api('/projects', json({ name: 'lone \ud800 surrogate' })));
    await expectBadRequest(await api('/projects', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc0, 0x22, 0x7d]) }));
    await expectBadRequest(await api('/projects', form('name=ok&description=a%00b')));
    await expectBadRequest(await api('/projects', form('name=caf%E9')));
    const multipart = new FormData();
    multipart.append('name', 'ok');
    multipart.append('description', 'nul\0inside');
    await expectBadRequest(await api('/projects', { method: 'POST', body: multipart }));
    await expectBadRequest(await api('/user', { token: null, headers: { Authorization: `Basic ${Buffer.from('root\0:x').toString('base64')}` } }));
    expect(await count('projects')).toBe(projects);

    // Control characters other than NUL are text like any other (GitLab accepts them too).
    const control = await api('/projects', json({ name: 'control', description: 'bell\u0007tab\t' }));
    expect(control.status).toBe(201);
    expect((await body(control)).description).toBe('bell\u0007tab\t');
    // Invalid JSON keeps Grape's own 400 body.
    const invalid = await api('/projects', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('content-type')).toBe('application/json');
    expect((await body(invalid)).error).toContain('message body does not match declared format');
  });

  it('creates a project from multipart/form-data (bracketed arrays, a file part alongside)', async () => {
    const data = new FormData();
    data.append('name', 'Multipart Démo');
    data.append('description', 'sent as form-data');
    data.append('visibility', 'public');
    data.append('topics[]', 'one');
    data.append('topics[]', 'two');
    data.append('avatar', new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00])], { type: 'image/png' }), 'avatar.png');
    const res = await api('/projects', { method: 'POST', body: data });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    const project = await body(res);
    expect(project).toMatchObject({ name: 'Multipart Démo', path: 'multipart-demo', description: 'sent as form-data', visibility: 'public', topics: ['one', 'two'] });
    const stored = await api(`/projects/${project.id}`, { token: null });
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({ id: project.id, topics: ['one', 'two'] });

    const broken = await api('/projects', { method: 'POST', headers: { 'Content-Type': 'multipart/form-data; boundary=zz' }, body: '--zz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx' });
    await expectBadRequest(broken);
    const noBoundary = await api('/projects', { method: 'POST', headers: { 'Content-Type': 'multipart/form-data' }, body: 'name=x' });
    await expectBadRequest(noBoundary);
    const large = new FormData();
    large.append('name', 'too-large');
    large.append('file', new Blob([Buffer.alloc(70 * 1024, 1)]), 'big.bin');
    const tooLarge = await api('/projects', { method: 'POST', body: large });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toBe('application/json');
    expect(await tooLarge.json()).toEqual({ message: '413 Request Entity Too Large' });
  });

  it('answers a Host header that cannot make a URL with 400 Bad Request (was a 500 while presenting URLs)', async () => {
    const { port } = new URL(stack.url);
    const raw = (host: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write(`GET /api/v4/projects HTTP/1.1\r\nHost: ${host}\r\nPRIVATE-TOKEN: ${stack.rootToken}\r\nConnection: close\r\n\r\n`));
        let data = '';
        socket.on('data', (b) => (data += b.toString()));
        socket.on('error', reject);
        socket.on('close', () => resolve(data));
      });
    for (const host of ['a b', '[::1', 'x:99999', '']) {
      const answer = await raw(host);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/\r\nContent-Type: text\/plain\r\n/i);
      expect(answer.endsWith('\r\n\r\nBad Request')).toBe(true);
    }
    const ok = await raw(`gitlab.example.com:${port}`);
    expect(ok).toMatch(/^HTTP\/1\.1 200 /);
    expect(ok).toContain(`"web_url":"http://gitlab.example.com:${port}/`);
  });

  it('sends Content-Type: application/json exactly, with Content-Length, on 200, 201, 400, 401, 404 and readiness', async () => {
    const created = await api('/projects', json({ name: 'content-type' }));
    const id = (await body(created.clone())).id;
    const responses = [
      [201, created],
      [200, await api(`/projects/${id}`)],
      [200, await api('/projects')],
      [400, await api('/projects', json({ description: 'nameless' }))],
      [401, await api('/user', { token: 'glpat-not-a-real-token-000' })],
      [404, await api('/projects/999999999')],
      [404, await api('/no/such/route')],
      [200, await fetch(`${stack.url}/-/readiness`)],
    ] as const;
    for (const [status, res] of responses) {
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
      expect(() => JSON.parse(bytes.toString())).not.toThrow();
    }
  });

  it('answers HEAD on GET routes with the same status and headers (X-Total, Link, Content-Length) and no body', async () => {
    for (const name of ['head-a', 'head-b', 'head-c']) expect((await api('/projects', json({ name, visibility: 'public' }))).status).toBe(201);
    const get = await api('/projects?per_page=2');
    const getBody = Buffer.from(await get.arrayBuffer());
    const head = await api('/projects?per_page=2', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('x-total'))).toBeGreaterThanOrEqual(3);
    for (const h of ['x-total', 'x-total-pages', 'x-per-page', 'x-page', 'x-next-page', 'link', 'content-type', 'content-length']) {
      expect([h, head.headers.get(h)]).toEqual([h, get.headers.get(h)]);
    }
    expect(Number(head.headers.get('content-length'))).toBe(getBody.length);
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    const anonymous = await api('/projects', { method: 'HEAD', token: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('x-total')).not.toBeNull();
    const missing = await api('/projects/999999999', { method: 'HEAD' });
    expect([missing.status, missing.headers.get('content-type'), (await missing.arrayBuffer()).byteLength]).toEqual([404, 'application/json', 0]);
  });
});
