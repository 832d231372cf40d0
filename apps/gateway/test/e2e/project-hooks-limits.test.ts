import { startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver } from '@glp/testing';

const THROTTLED = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };

/**
 * What a Maintainer can do to fan out requests through project hooks, held to GitLab's limits with the defaults: at most
 * 100 hooks per project (`project_hooks` plan limit: the 101st is 422 "Maximum number of project hooks (100) exceeded"
 * and nothing is stored), and 5 tests / 5 resends per minute per (project, user) (`web_hook_test`,
 * `web_hook_event_resend`: the 6th is 429 with `check_rate_limit!`'s body).
 */
describe('project hook limits', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const api = async (path: string, init: RequestInit & { as?: string } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('PRIVATE-TOKEN', tokens[init.as ?? 'maint']!);
    const res = await fetch(`${stack.apiUrl}${path}`, { ...init, headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const json = (method: string, body: unknown, as?: string) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), ...(as ? { as } : {}) });
  const hooks = (project: number) => `/projects/${project}/hooks`;
  const total = async (project: number) => Number((await api(hooks(project))).headers.get('x-total'));

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ name: 'e2e_hook_limits', env: { ALLOW_LOCAL_WEBHOOKS: 'true' } });
    tokens.root = stack.rootToken;
    for (const name of ['maint', 'other']) {
      const user = await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` }, 'root'));
      ids[name] = user.body.id;
      tokens[name] = (await api(`/users/${user.body.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] }, 'root'))).body.token;
    }
    ids.app = (await api('/projects', json('POST', { name: 'app', visibility: 'private' }))).body.id;
    ids.second = (await api('/projects', json('POST', { name: 'second', visibility: 'private' }))).body.id;
    for (const project of [ids.app, ids.second]) {
      expect((await api(`/projects/${project}/members`, json('POST', { user_id: ids.other, access_level: 40 }))).status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('refuses the 101st hook of a project with GitLab\'s 422, stores nothing, and counts per project', async () => {
    for (let i = 0; i < 100; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => api(hooks(ids.app!), json('POST', { url: `${receiver.url}/h${i + j}` }))));
      expect(batch.map((r) => r.status)).toEqual(Array(10).fill(201));
    }
    expect(await total(ids.app!)).toBe(100);
    const refused = await api(hooks(ids.app!), json('POST', { url: `${receiver.url}/h100`, push_events: true }));
    expect([refused.status, refused.body]).toEqual([422, { error: 'Maximum number of project hooks (100) exceeded' }]);
    // Any Maintainer, at once: still 100.
    const burst = await Promise.all(Array.from({ length: 5 }, (_, j) => api(hooks(ids.app!), json('POST', { url: `${receiver.url}/x${j}` }, j % 2 ? 'other' : 'maint'))));
    expect(burst.map((r) => r.status)).toEqual(Array(5).fill(422));
    expect(await total(ids.app!)).toBe(100);
    const listed = await api(`${hooks(ids.app!)}?per_page=100&page=1`);
    expect(listed.body.some((h: { url: string }) => h.url.endsWith('/h100') || h.url.includes('/x'))).toBe(false);

    // Another project is not affected; a delete makes room again; edits are not creates.
    expect((await api(hooks(ids.second!), json('POST', { url: `${receiver.url}/s` }))).status).toBe(201);
    const first = listed.body[0] as { id: number };
    expect((await api(`${hooks(ids.app!)}/${first.id}`, json('PUT', { name: 'renamed' }))).status).toBe(200);
    expect((await api(`${hooks(ids.app!)}/${first.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(hooks(ids.app!), json('POST', { url: `${receiver.url}/again` }))).status).toBe(201);
    expect((await api(hooks(ids.app!), json('POST', { url: `${receiver.url}/too-many` }))).status).toBe(422);
  }, 120_000);

  it('answers the 6th hook test and the 6th resend of a minute with 429, per (project, user)', async () => {
    receiver.respond('/t', () => 200);
    const hook = (await api(hooks(ids.second!), json('POST', { url: `${receiver.url}/t` }))).body as { id: number };
    const test = (as = 'maint', project = ids.second!, hookId = hook.id) => api(`${hooks(project)}/${hookId}/test/push_events`, { method: 'POST', as });
    for (let i = 0; i < 5; i++) expect((await test()).status).toBe(201);
    const sixth = await test();
    expect([sixth.status, sixth.body]).toEqual([429, THROTTLED]);
    expect(receiver.at('/t')).toHaveLength(5);
    // Keyed by project and user, as GitLab's `scope: [hook.parent, current_user]`: another Maintainer still may.
    expect((await test('other')).status).toBe(201);

    const events = (await api(`${hooks(ids.second!)}/${hook.id}/events`)).body as { id: number }[];
    expect(events.length).toBeGreaterThan(0);
    const resend = (as = 'maint') => api(`${hooks(ids.second!)}/${hook.id}/events/${events[0]!.id}/resend`, { method: 'POST', as });
    for (let i = 0; i < 5; i++) expect((await resend()).status).toBe(201);
    const sixthResend = await resend();
    expect([sixthResend.status, sixthResend.body]).toEqual([429, THROTTLED]);
    expect((await resend('other')).status).toBe(201);
    expect(receiver.at('/t')).toHaveLength(5 + 1 + 5 + 1);
  }, 60_000);
});
