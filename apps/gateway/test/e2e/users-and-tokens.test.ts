import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort, infraFromEnv, REPO_ROOT, startStack, type RunningStack } from '@glp/testing';

/**
 * Users and personal access tokens over HTTP, with TWO gateway processes (A: the stack's, B: a second replica on the same
 * services and Redis). A revoked or rotated token, a blocked user and a removed admin flag must take effect on both
 * within 1 second, whatever their token caches hold (they are warmed first). The measured delays are printed.
 */
describe('users and tokens, invalidated on every gateway within a second', () => {
  let stack: RunningStack;
  let second: ChildProcess;
  let urlB = '';
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const delays: Record<string, number> = {};

  const call = (base: string, p: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.token === undefined ? stack.rootToken : init.token;
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${base}/api/v4${p}`, { ...init, headers });
  };
  const api = (p: string, init: RequestInit & { token?: string | null } = {}) => call(stack.url, p, init);
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  /** Warms both gateways' caches with the token, runs `change`, then polls both until `status`; returns the worst delay. */
  async function takesEffect(name: string, token: string, p: string, before: number, status: number, change: () => Promise<void>): Promise<void> {
    for (const base of [stack.url, urlB]) {
      for (let i = 0; i < 3; i++) expect((await call(base, p, { token })).status).toBe(before);
    }
    await change();
    const changedAt = performance.now();
    let worst = 0;
    for (const base of [stack.url, urlB]) {
      for (;;) {
        const res = await call(base, p, { token });
        await res.text();
        if (res.status === status) break;
        if (performance.now() - changedAt > 3000) throw new Error(`${name}: ${base} still answers ${res.status} after 3 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      worst = Math.max(worst, performance.now() - changedAt);
    }
    delays[name] = Math.round(worst);
    expect(worst).toBeLessThan(1000);
  }

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_users' });
    const port = await freePort();
    urlB = `http://127.0.0.1:${port}`;
    const infra = infraFromEnv();
    second = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/gateway/dist/main.js')], {
      cwd: REPO_ROOT,
      env: {
        ...process.env, NODE_ENV: 'test', PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: '0', LOG_LEVEL: 'warn', REDIS_URL: infra.redisUrl,
        IDENTITY_GRPC_ADDR: stack.grpcAddrs.identity, PROJECTS_GRPC_ADDR: stack.grpcAddrs.projects, ACCESS_REQUESTS_GRPC_ADDR: stack.grpcAddrs.accessRequests,
      },
      stdio: 'ignore',
    });
    for (let i = 0; ; i++) {
      const ok = await fetch(`${urlB}/-/readiness`).then((r) => r.ok, () => false);
      if (ok) break;
      if (i > 200) throw new Error('second gateway did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const name of ['alice', 'bob', 'carol']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name: name.toUpperCase(), email: `${name}@example.com`, password: `${name}-password-1`, private_profile: name === 'carol' })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
  }, 120_000);
  afterAll(async () => {
    second?.kill('SIGTERM');
    await stack?.stop();
    console.log(`invalidation delays (worst of 2 gateways, ms): ${JSON.stringify(delays)}`);
  });

  it('lists and shows users as the caller may see them', async () => {
    const basic = await expectJson(await api('/users?username=ALICE', { token: tokens.bob }), 200);
    expect(basic).toEqual([{ id: ids.alice, username: 'alice', public_email: null, name: 'ALICE', state: 'active', locked: false, avatar_url: null, web_url: `${stack.url}/alice` }]);
    const admin = await expectJson(await api('/users?search=alice'), 200);
    expect(admin[0]).toMatchObject({ username: 'alice', email: 'alice@example.com', is_admin: false, namespace_id: expect.any(Number) });
    expect(await expectJson(await api('/users?external=true', { token: tokens.bob }), 403)).toEqual({ message: '403 Forbidden' });
    const carol = await expectJson(await api(`/users/${ids.carol}`, { token: tokens.bob }), 200);
    expect(carol).not.toHaveProperty('bio'); // private profile: basics only
    expect(await expectJson(await api(`/users/${ids.alice}`, { token: tokens.bob }), 200)).toHaveProperty('bio');
    expect(await expectJson(await api(`/users/${ids.alice}`, { token: tokens.alice }), 200)).toMatchObject({ email: 'alice@example.com' });
  });

  it('edits a user (admin): a new username moves the personal namespace; taken e-mails are 409', async () => {
    const renamed = await expectJson(await api(`/users/${ids.alice}`, json('PUT', { username: 'alice2', bio: 'hello' })), 200);
    expect(renamed).toMatchObject({ username: 'alice2', bio: 'hello' });
    expect(await expectJson(await api('/namespaces/alice2'), 200)).toMatchObject({ kind: 'user', full_path: 'alice2' });
    expect(await expectJson(await api(`/users/${ids.alice}`, json('PUT', { email: 'bob@example.com' })), 409)).toEqual({ message: 'Email has already been taken' });
    expect(await expectJson(await api(`/users/${ids.alice}`, { ...json('PUT', { name: 'x' }), token: tokens.bob }), 403)).toEqual({ message: '403 Forbidden' });
  });

  it("manages tokens: list own, self, another user's is 401/404/400", async () => {
    const own = await expectJson(await api('/personal_access_tokens', { token: tokens.bob }), 200);
    expect(own.map((t: { user_id: number }) => t.user_id)).toEqual([ids.bob]);
    expect(own[0]).not.toHaveProperty('token');
    const self = await expectJson(await api('/personal_access_tokens/self', { token: tokens.bob }), 200);
    expect(self).toMatchObject({ id: own[0].id, name: 'e2e', active: true, revoked: false, scopes: ['api'] });
    expect(await expectJson(await api(`/personal_access_tokens?user_id=${ids.carol}`, { token: tokens.bob }), 401)).toEqual({ message: '401 Unauthorized' });
    const carols = await expectJson(await api(`/personal_access_tokens?user_id=${ids.carol}`), 200);
    expect(await expectJson(await api(`/personal_access_tokens/${carols[0].id}`, { token: tokens.bob }), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await expectJson(await api(`/personal_access_tokens/${carols[0].id}`, { method: 'DELETE', token: tokens.bob }), 400)).toEqual({ message: '400 Bad request' });
    expect(await expectJson(await api('/personal_access_tokens/999999', { method: 'DELETE' }), 404)).toEqual({ message: '404 Not found' });
  });

  it('rotation: the new token works at once, the old one stops on both gateways within 1 s', async () => {
    let rotated = '';
    await takesEffect('rotate', tokens.bob!, '/user', 200, 401, async () => {
      const res = await expectJson(await api('/personal_access_tokens/self/rotate', { method: 'POST', token: tokens.bob }), 200);
      expect(res).toMatchObject({ name: 'e2e', scopes: ['api'], active: true });
      expect(res.token).toMatch(/^glpat-/);
      rotated = res.token;
    });
    expect(await expectJson(await call(urlB, '/user', { token: rotated }), 200)).toMatchObject({ username: 'bob' });
    tokens.bob = rotated;
  });

  it('revocation stops a token on both gateways within 1 s', async () => {
    const [token] = await expectJson(await api(`/personal_access_tokens?user_id=${ids.carol}`), 200);
    await takesEffect('revoke', tokens.carol!, '/user', 200, 401, async () => {
      const res = await api(`/personal_access_tokens/${token.id}`, { method: 'DELETE' });
      expect(res.status).toBe(204);
    });
  });

  it('blocking a user stops their tokens (403) within 1 s; unblocking restores them', async () => {
    await takesEffect('block', tokens.bob!, '/user', 200, 403, async () => {
      expect(await expectJson(await api(`/users/${ids.bob}/block`, { method: 'POST' }), 201)).toBe(true);
    });
    expect(await expectJson(await call(urlB, '/user', { token: tokens.bob }), 403)).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
    expect(await expectJson(await api(`/users/${ids.bob}`, { token: tokens.alice }), 404)).toEqual({ message: '404 User Not Found' });
    await takesEffect('unblock', tokens.bob!, '/user', 403, 200, async () => {
      expect(await expectJson(await api(`/users/${ids.bob}/unblock`, { method: 'POST' }), 201)).toBe(true);
    });
  });

  it('removing the admin flag ends admin access on both gateways within 1 s', async () => {
    await expectJson(await api(`/users/${ids.alice}`, json('PUT', { admin: true })), 200);
    await takesEffect('admin removed', tokens.alice!, '/users?external=false', 200, 403, async () => {
      await expectJson(await api(`/users/${ids.alice}`, json('PUT', { admin: false })), 200);
    });
  });

  it('deletes a user (204) with their personal projects; a sole group owner needs hard_delete', async () => {
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'mine' }), token: tokens.alice }), 201);
    await expectJson(await api('/groups', { ...json('POST', { name: 'Solo', path: 'solo' }), token: tokens.alice }), 201);
    expect(await expectJson(await api(`/users/${ids.alice}`, { method: 'DELETE' }), 409)).toEqual({ message: 'User cannot be removed while is the sole-owner of a group' });
    expect((await api(`/users/${ids.alice}?hard_delete=true`, { method: 'DELETE' })).status).toBe(204);
    expect(await expectJson(await api(`/users/${ids.alice}`), 404)).toEqual({ message: '404 User Not Found' });
    const deletedAt = performance.now();
    while ((await call(urlB, '/user', { token: tokens.alice })).status !== 401) {
      if (performance.now() - deletedAt > 1000) throw new Error("a deleted user's token still works on gateway B after 1 s");
      await new Promise((r) => setTimeout(r, 10));
    }
    // the personal namespace went through NamespaceDeleted: its project is scheduled for deletion (hidden)
    for (let i = 0; ; i++) {
      const res = await api(`/projects/${project.id}`);
      await res.text();
      if (res.status === 404) break;
      if (i > 150) throw new Error("the deleted user's project is still visible after 15 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
