import { startStack, type RunningStack } from '@glp/testing';

/**
 * Sudo as GitLab does it, and credentials that never reach a log line: every process of the stack logs at trace
 * level while requests carry the token in every place GitLab accepts one (and a few where it does not), including
 * requests that fail and a backend outage that makes the gateway log an error with the request URL.
 */
describe('sudo and secrets in logs', () => {
  let stack: RunningStack;
  let alice: { id: number; username: string };
  const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.token === undefined ? stack.rootToken : init.token;
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_auth', env: { LOG_LEVEL: 'trace', ACCESS_LOG_LEVEL: 'info' } });
    const res = await api('/users', json({ username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'S3cure-password!' }));
    expect(res.status).toBe(201);
    alice = await res.json();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  describe('Sudo', () => {
    it('lets the administrator act as a user named by the Sudo header or the sudo param (id or username)', async () => {
      for (const init of [{ headers: { Sudo: 'alice' } }, { headers: { Sudo: String(alice.id) } }]) {
        const res = await api('/user', init);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ id: alice.id, username: 'alice' });
      }
      const byParam = await api(`/user?sudo=ALICE`);
      expect((await byParam.json()).username).toBe('alice');
    });

    it('creates as the user acted as: the project lands in their namespace, owned by them', async () => {
      const res = await api('/projects', { ...json({ name: 'sudo-made', sudo: 'alice' }) });
      expect(res.status).toBe(201);
      const project = await res.json();
      expect(project).toMatchObject({ path_with_namespace: 'alice/sudo-made', owner: { username: 'alice' }, creator_id: alice.id });
      // Alice sees it as its owner; the admin route is refused while acting as a non-admin.
      const asAlice = await api(`/projects/${project.id}`, { headers: { Sudo: 'alice' } });
      expect((await asAlice.json()).permissions.project_access.access_level).toBe(50);
      const adminRoute = await api('/users', { ...json({ username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'S3cure-password!' }), headers: { Sudo: 'alice', 'Content-Type': 'application/json' } });
      expect(adminRoute.status).toBe(403);
    });

    it("answers GitLab's errors: unknown user 404, no sudo scope 403, non-admin 403, anonymous 401", async () => {
      const unknown = await api('/user', { headers: { Sudo: 'nobody' } });
      expect([unknown.status, await unknown.json()]).toEqual([404, { message: "404 User with ID or username 'nobody' Not Found" }]);

      const plain = await api('/users/1/personal_access_tokens', json({ name: 'no-sudo', scopes: ['api'] }));
      const noSudoToken = (await plain.json()).token as string;
      const noScope = await api('/user', { token: noSudoToken, headers: { Sudo: 'alice' } });
      expect(noScope.status).toBe(403);
      expect(await noScope.json()).toMatchObject({ error: 'insufficient_scope', scope: 'sudo' });

      const aliceToken = (await (await api(`/users/${alice.id}/personal_access_tokens`, json({ name: 'a', scopes: ['api', 'sudo'] }))).json()).token as string;
      const notAdmin = await api('/user', { token: aliceToken, headers: { Sudo: 'root' } });
      expect([notAdmin.status, await notAdmin.json()]).toEqual([403, { message: '403 Forbidden - Must be admin to use sudo' }]);

      const anonymous = await api('/projects', { token: null, headers: { Sudo: 'alice' } });
      expect([anonymous.status, await anonymous.json()]).toEqual([401, { message: '401 Unauthorized' }]);
    });
  });

  it('never writes a credential to any log line of any process', async () => {
    const token = stack.rootToken;
    const base = stack.apiUrl;
    const form = (body: Record<string, string>): RequestInit => ({
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString(),
    });
    // The token in every place a client may put one, on routes that succeed and routes that fail.
    const attempts: Array<[string, RequestInit]> = [
      [`${base}/projects?private_token=${token}`, {}],
      [`${base}/projects?access_token=${token}&per_page=1`, {}],
      [`${base}/projects/999999?private_token=${token}`, {}],
      [`${base}/no/such/route?private_token=${token}`, {}],
      [`${base}/user`, { headers: { Authorization: `Bearer ${token}` } }],
      [`${base}/user`, { headers: { 'PRIVATE-TOKEN': token } }],
      [`${base}/user`, { headers: { 'Job-Token': token, Cookie: `_gitlab_session=${token}`, 'PRIVATE-TOKEN': token } }],
      [`${base}/projects`, form({ private_token: token, name: 'logged-project' })],
      [`${base}/projects`, { ...form({ name: '' }), headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'PRIVATE-TOKEN': token } }],
      [`${base}/projects?private_token=${token}&visibility=secret`, { method: 'POST' }],
      [`${base}/user?private_token=${token}x`, {}],
      [`${base}/user`, { headers: { Authorization: `Bearer ${token}x` } }],
    ];
    for (const [url, init] of attempts) {
      const res = await fetch(url, init);
      expect(res.status).toBeLessThan(500);
      await res.arrayBuffer();
    }
    // A backend outage: the gateway logs the failed request (with its URL) as an error.
    stack.signal('projects', 'SIGKILL');
    const outage = await fetch(`${base}/projects/1?private_token=${token}`);
    expect(outage.status).toBeGreaterThanOrEqual(500);
    await stack.stop();

    const logs = stack.logs();
    expect(logs.split(token).length - 1).toBe(0);
    // The lines were written (and censored), so the absence above means something.
    expect(logs).toContain('"path":"/api/v4/projects?private_token=[REDACTED]"');
    expect(logs).toContain('"path":"/api/v4/projects?access_token=[REDACTED]&per_page=1"');
    expect(logs).toMatch(/"msg":"request failed"/);
    expect(logs).toContain('/api/v4/projects/1?private_token=[REDACTED]');
    // One concise line per request: no headers in the access log.
    expect(logs).not.toMatch(/"headers":/);
  });
});
