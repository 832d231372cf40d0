import { eventually, startStack, type RunningStack } from '@glp/testing';

/**
 * GET /projects/:id of many callers at once, coalesced by the gateway into GetProjects calls (project-read-batcher.ts):
 * a window of 50 ms makes the burst below one batch for sure. Every answer must be the one the same request gets alone
 * (status, body, Location), whoever else was in its batch.
 */
describe('GET /projects/:id batched across callers', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const api = (urlPath: string, as?: string | null, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    const token = as === undefined ? stack.rootToken : as === null ? undefined : tokens[as] ?? as;
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${urlPath}`, { redirect: 'manual', ...init, headers });
  };
  const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`${res.url}: expected ${status}, got ${res.status}: ${text}`);
    return JSON.parse(text);
  };
  /** What a client sees of an answer. */
  const seen = async (res: Response) => ({ status: res.status, location: res.headers.get('location'), body: await res.text() });
  /** The gateway's batch-size histogram: how many calls went to projects, carrying how many reads. */
  const batches = async () => {
    const text = await (await fetch(stack.metricsUrls.gateway)).text();
    const value = (name: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    return { calls: value('glp_gateway_project_read_batch_size_count'), reads: value('glp_gateway_project_read_batch_size_sum') };
  };
  const enc = encodeURIComponent;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_batched_reads', env: { PROJECT_READ_BATCH_WINDOW_MS: '50' } });
    for (const name of ['alice', 'bob', 'carol']) {
      const u = await expectJson(await api('/users', undefined, json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = u.id;
      tokens[name] = (await expectJson(await api(`/users/${u.id}/personal_access_tokens`, undefined, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    ids.secret = (await expectJson(await api('/projects', 'alice', json('POST', { name: 'secret', visibility: 'private' })), 201)).id;
    ids.open = (await expectJson(await api('/projects', 'alice', json('POST', { name: 'open', visibility: 'public' })), 201)).id;
    ids.renamed = (await expectJson(await api('/projects', 'alice', json('POST', { name: 'old-name', visibility: 'private' })), 201)).id;
    await expectJson(await api(`/projects/${ids.renamed}`, 'alice', json('PUT', { path: 'new-name' })), 200);
    const group = await expectJson(await api('/groups', undefined, json('POST', { name: 'Team', path: 'team', visibility: 'private' })), 201);
    await expectJson(await api(`/groups/${group.id}/members`, undefined, json('POST', { user_id: ids.carol, access_level: 20 })), 201);
    ids.team = (await expectJson(await api('/projects', undefined, json('POST', { name: 'team-app', namespace_id: group.id, visibility: 'private' })), 201)).id;
    // repo-admin reports each new repository's size a moment after the project is created; the answers compared below
    // show statistics, so they are taken once every repository has been reported (else `storage_size` moves between
    // the two passes: 0, then 23,913).
    for (const id of [ids.secret, ids.open, ids.renamed, ids.team]) {
      await eventually(async () => (await expectJson(await api(`/projects/${id}?statistics=true`), 200)).statistics.repository_size > 0, 60_000, 100);
    }
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers each request of a burst of callers as it answers it alone, in fewer calls to projects', async () => {
    const requests: [string, string | null | undefined][] = [
      [`/projects/${ids.secret}`, undefined], [`/projects/${ids.secret}`, 'alice'], [`/projects/${ids.secret}`, 'bob'],
      [`/projects/${ids.open}`, null], [`/projects/${ids.secret}`, null], [`/projects/${ids.team}`, 'carol'], [`/projects/${ids.team}`, 'bob'],
      [`/projects/${enc('alice/old-name')}?statistics=true`, 'alice'], [`/projects/${enc('Alice/NEW-name')}`, 'alice'], ['/projects/999999', undefined],
      [`/projects/${ids.open}?statistics=true&license=true`, 'alice'], [`/projects/${ids.secret}?with_custom_attributes=true`, undefined],
      [`/projects/${ids.open}`, 'not-a-token'],
    ];
    const alone: Awaited<ReturnType<typeof seen>>[] = [];
    for (const [url, as] of requests) alone.push(await seen(await api(url, as)));
    expect(alone.map((a) => a.status)).toEqual([200, 200, 404, 200, 404, 200, 404, 301, 200, 404, 200, 200, 401]);
    expect(alone[7].location).toBe(`${stack.apiUrl}/projects/${ids.renamed}?statistics=true`);

    const before = await batches();
    const together = await Promise.all(requests.map(([url, as]) => api(url, as).then(seen)));
    const after = await batches();
    expect(together).toEqual(alone);
    // 12 reads reached the batcher (the bad token is refused before); they went to projects in fewer calls.
    expect(after.reads - before.reads).toBe(12);
    expect(after.calls - before.calls).toBeLessThan(12);
  });
});
