import { startStack, type RunningStack } from '@glp/testing';

/**
 * What a request costs, counted (issue #14): every service counts the SQL queries it runs and the gRPC calls it makes
 * while serving a request (glp_request_sql_queries_total, glp_request_grpc_calls_total; background work is not
 * counted). For each listing, per_page=1 and per_page=100 (1 and ≥ 50 items) must cost the same round trips in total:
 * no endpoint does a lookup per item. Token caches are off, so every request pays its authentication the same way.
 */
const ROWS = 52;
const SETTLE_QUIET_MS = 400;

describe('request cost: gRPC calls and SQL queries per request do not grow with the page size', () => {
  let stack: RunningStack;
  let sudoToken: string;
  const ids: Record<string, number> = {};
  const rows: string[] = [];

  const api = (path: string, init: RequestInit & { sudo?: string } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('PRIVATE-TOKEN', init.sudo ? sudoToken : stack.rootToken);
    if (init.sudo) headers.set('Sudo', init.sudo);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const ok = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`${res.url}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  /** Runs fn over 0..n-1, `width` at a time. */
  const each = async (n: number, fn: (i: number) => Promise<unknown>, width = 6) => {
    for (let start = 0; start < n; start += width) await Promise.all(Array.from({ length: Math.min(width, n - start) }, (_, k) => fn(start + k)));
  };

  /** Sums of both counters over every service's /metrics. */
  const totals = async () => {
    let sql = 0;
    let grpc = 0;
    await Promise.all(
      Object.values(stack.metricsUrls).map(async (url) => {
        const text = await (await fetch(url)).text();
        for (const line of text.split('\n')) {
          const value = Number(line.slice(line.lastIndexOf(' ') + 1));
          if (line.startsWith('glp_request_sql_queries_total{')) sql += value;
          else if (line.startsWith('glp_request_grpc_calls_total{')) grpc += value;
        }
      }),
    );
    return { sql, grpc };
  };
  /** Waits until no service counts anything for a while (seeding's jobs, relays and consumers done). */
  const settle = async (timeoutMs = 20000) => {
    const until = Date.now() + timeoutMs;
    let last = await totals();
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, SETTLE_QUIET_MS));
      const now = await totals();
      if (now.sql === last.sql && now.grpc === last.grpc) return;
      last = now;
    }
  };
  /** One request alone: what it cost (the least of `tries`, since work in the background only ever adds). */
  const cost = async (path: string, init: RequestInit = {}, expectStatus = 200, tries = 2) => {
    let best = { sql: Infinity, grpc: Infinity, items: 0 };
    for (let t = 0; t < tries; t += 1) {
      const before = await totals();
      const res = await api(path, init);
      const body = await ok(res, expectStatus);
      const after = await totals();
      const spent = { sql: after.sql - before.sql, grpc: after.grpc - before.grpc, items: Array.isArray(body) ? body.length : 1 };
      if (spent.sql + spent.grpc < best.sql + best.grpc) best = spent;
    }
    return best;
  };

  beforeAll(async () => {
    // The caches that spare a request work are off, so what is counted is the work of a request nothing was kept for:
    // tokens, users' group levels, and listed projects' encodings (with them, a listing reads the rows of only the
    // projects not kept: one statement more or less depending on which projects the page holds).
    stack = await startStack({
      name: 'e2e_request_cost',
      env: {
        AUTH_CACHE_TTL_SECONDS: '0', AUTH_LOCAL_CACHE_TTL_MS: '0', AUTH_NEGATIVE_CACHE_TTL_MS: '0', ALLOW_LOCAL_WEBHOOKS: 'true',
        GROUP_ACCESS_CACHE_TTL_MS: '0', ENCODED_PROJECT_CACHE_BYTES: '0',
      },
    });
    sudoToken = (await ok(await api('/users/1/personal_access_tokens', json('POST', { name: 'sudo', scopes: ['api', 'sudo'] })), 201)).token;
    ids.project = (await ok(await api('/projects', json('POST', { name: 'costly', visibility: 'public' })), 201)).id;
    ids.requested = (await ok(await api('/projects', json('POST', { name: 'requested', visibility: 'public' })), 201)).id;
    ids.group = (await ok(await api('/groups', json('POST', { name: 'cost-group', path: 'cost-group', visibility: 'public' })), 201)).id;
    ids.requestedGroup = (await ok(await api('/groups', json('POST', { name: 'cost-requested', path: 'cost-requested', visibility: 'public' })), 201)).id;
    const users: string[] = [];
    await each(ROWS, async (i) => {
      const username = `cost-user-${i}`;
      const user = await ok(await api('/users', json('POST', { username, name: `Cost User ${i}`, email: `${username}@example.com`, password: `${username}-password-1` })), 201);
      users[i] = username;
      if (i === 0) ids.starrer = user.id;
      await ok(await api(`/projects/${ids.project}/members`, json('POST', { user_id: user.id, access_level: 30 })), 201);
      await ok(await api(`/groups/${ids.group}/members`, json('POST', { user_id: user.id, access_level: 30 })), 201);
      await ok(await api(`/projects/${ids.project}/star`, { method: 'POST', sudo: username }), 201);
      await ok(await api(`/projects/${ids.requested}/access_requests`, { method: 'POST', sudo: username }), 201);
      await ok(await api(`/groups/${ids.requestedGroup}/access_requests`, { method: 'POST', sudo: username }), 201);
    });
    await each(ROWS, async (i) => {
      await ok(await api('/groups', json('POST', { name: `cost-group-${i}`, path: `cost-group-${i}`, parent_id: ids.group })), 201);
      await ok(await api(`/projects/${ids.project}/hooks`, json('POST', { url: `http://127.0.0.1:9/hook-${i}`, push_events: true })), 201);
      const form = new FormData();
      form.set('file', new Blob([`upload ${i}`], { type: 'text/plain' }), `file-${i}.txt`);
      await ok(await api(`/projects/${ids.project}/uploads`, { method: 'POST', body: form }), 201);
      const fork = await ok(await api(`/projects/${ids.project}/fork`, json('POST', { name: `costly-fork-${i}`, path: `costly-fork-${i}` })), 201);
      await ok(await api(`/projects/${fork.id}/star`, { method: 'POST', sudo: users[0] }), 201);
    });
    await settle();
  }, 120000);

  afterAll(async () => {
    if (rows.length) {
      console.log(['| request | gRPC calls (per_page=1 / 100) | SQL queries (per_page=1 / 100) | items |', '|---|---|---|---|', ...rows].join('\n'));
    }
    await stack?.stop();
  });

  const listings: Array<[string, () => string]> = [
    ['GET /projects', () => '/projects'],
    ['GET /projects?membership=true', () => '/projects?membership=true'],
    ['GET /projects?statistics=true', () => '/projects?statistics=true'],
    ['GET /projects?with_custom_attributes=true', () => '/projects?with_custom_attributes=true'],
    ['GET /projects?pagination=keyset', () => '/projects?pagination=keyset&order_by=id&sort=asc'],
    ['GET /projects/:id/members', () => `/projects/${ids.project}/members`],
    ['GET /projects/:id/members/all', () => `/projects/${ids.project}/members/all`],
    ['GET /projects/:id/users', () => `/projects/${ids.project}/users`],
    ['GET /projects/:id/forks', () => `/projects/${ids.project}/forks`],
    ['GET /projects/:id/starrers', () => `/projects/${ids.project}/starrers`],
    ['GET /projects/:id/events', () => `/projects/${ids.project}/events`],
    ['GET /projects/:id/hooks', () => `/projects/${ids.project}/hooks`],
    ['GET /projects/:id/uploads', () => `/projects/${ids.project}/uploads`],
    ['GET /projects/:id/access_requests', () => `/projects/${ids.requested}/access_requests`],
    ['GET /users', () => '/users'],
    ['GET /users/:id/projects', () => '/users/1/projects'],
    ['GET /users/:id/starred_projects', () => `/users/${ids.starrer}/starred_projects`],
    ['GET /groups', () => '/groups'],
    ['GET /groups/:id/subgroups', () => `/groups/${ids.group}/subgroups`],
    ['GET /groups/:id/access_requests', () => `/groups/${ids.requestedGroup}/access_requests`],
    ['GET /groups/:id/members', () => `/groups/${ids.group}/members`],
    ['GET /groups/:id/members/all', () => `/groups/${ids.group}/members/all`],
    ['GET /namespaces', () => '/namespaces'],
  ];

  it.each(listings)('%s costs the same for 1 and for 100 items', async (label, path) => {
    const sep = path().includes('?') ? '&' : '?';
    await cost(`${path()}${sep}per_page=100`, {}, 200, 1); // warm whatever a first call warms
    const one = await cost(`${path()}${sep}per_page=1`);
    const hundred = await cost(`${path()}${sep}per_page=100`);
    rows.push(`| ${label} | ${one.grpc} / ${hundred.grpc} | ${one.sql} / ${hundred.sql} | ${one.items} / ${hundred.items} |`);
    expect(one.items).toBe(1);
    expect(hundred.items).toBeGreaterThanOrEqual(50);
    expect({ label, grpc: hundred.grpc, sql: hundred.sql }).toEqual({ label, grpc: one.grpc, sql: one.sql });
    expect(one.grpc).toBeGreaterThan(0); // counted at all: the gateway called a service
  });

  it('GET /projects/:id and POST /projects cost a constant, printed', async () => {
    const get = await cost(`/projects/${ids.project}`);
    rows.push(`| GET /projects/:id | ${get.grpc} | ${get.sql} | 1 |`);
    const post = await cost('/projects', json('POST', { name: 'costly-created', visibility: 'private' }), 201, 1);
    rows.push(`| POST /projects | ${post.grpc} | ${post.sql} | 1 |`);
    const gatewayMetrics = await (await fetch(stack.metricsUrls.gateway)).text();
    expect(gatewayMetrics).toMatch(/^glp_request_grpc_calls_total\{method="GET \/projects\/:id"[^}]*\} [1-9]/m); // labelled by route
    const projectsMetrics = await (await fetch(stack.metricsUrls.projects)).text();
    expect(projectsMetrics).toMatch(/^glp_request_sql_queries_total\{method="\/[\w.]+\.ProjectsService\/GetProject"[^}]*\} [1-9]/m); // by gRPC method
    expect(get.grpc).toBeGreaterThan(0);
    expect(get.sql).toBeGreaterThan(0);
    expect(post.sql).toBeGreaterThan(get.sql);
  });
});
