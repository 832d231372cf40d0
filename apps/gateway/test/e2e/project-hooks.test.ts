import { startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver } from '@glp/testing';

/**
 * Project hooks over HTTP (spec 4.7, reference §13, GitLab `lib/api/project_hooks.rb`): CRUD with a Maintainer,
 * GitLab's refusals for a Developer (403), anonymous (401), another project's hook (404), bad input (400/422), the
 * test endpoint and its rate limit; the token never in any response.
 */
describe('project hooks through the gateway', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const bodies: string[] = [];

  const api = async (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? tokens.maint : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    const res = await fetch(`${stack.apiUrl}${path}`, { ...init, headers });
    const text = await res.text();
    bodies.push(text);
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const json = (method: string, body: unknown, as?: string | null) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), as });
  const hooks = (project = ids.app) => `/projects/${project}/hooks`;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ name: 'e2e_project_hooks', env: { ALLOW_LOCAL_WEBHOOKS: 'true', HOOK_TEST_RATE_LIMIT: '3' } });
    tokens.root = stack.rootToken;
    for (const name of ['maint', 'dev']) {
      const user = await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` }, 'root'));
      ids[name] = user.body.id;
      tokens[name] = (await api(`/users/${user.body.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] }, 'root'))).body.token;
    }
    ids.app = (await api('/projects', json('POST', { name: 'app', visibility: 'private' }))).body.id;
    ids.other = (await api('/projects', json('POST', { name: 'other', visibility: 'private' }))).body.id;
    expect((await api(`/projects/${ids.app}/members`, json('POST', { user_id: ids.dev, access_level: 30 }))).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('creates with GitLab defaults (201) and never shows the token', async () => {
    const res = await api(hooks(), json('POST', { url: `${receiver.url}/a`, token: 'super-secret-token' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), url: `${receiver.url}/a`, name: '', description: '', created_at: expect.any(String),
      push_events: true, tag_push_events: false, merge_requests_events: false, repository_update_events: false,
      enable_ssl_verification: true, alert_status: 'executable', disabled_until: null, url_variables: [],
      push_events_branch_filter: null, branch_filter_strategy: 'wildcard', custom_webhook_template: null, custom_headers: [],
      project_id: ids.app, issues_events: false, confidential_issues_events: false, note_events: false,
      confidential_note_events: null, pipeline_events: false, wiki_page_events: false, deployment_events: false,
      feature_flag_events: false, job_events: false, releases_events: false, milestone_events: false, emoji_events: false,
      resource_access_token_events: false, resource_deploy_token_events: false, vulnerability_events: false,
    });
    expect(Object.keys(res.body)[0]).toBe('id');
    ids.hook = res.body.id;
  });

  it('lists (paginated, without url_variables/custom_headers), shows, edits and deletes', async () => {
    const created = await api(hooks(), json('POST', {
      url: `${receiver.url}/{path}`, url_variables: [{ key: 'path', value: 'b' }], custom_headers: [{ key: 'X-Team', value: 'ops' }],
      tag_push_events: true, push_events_branch_filter: 'release/*', name: 'second',
    }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url_variables: [{ key: 'path' }], custom_headers: [{ key: 'X-Team' }], push_events_branch_filter: 'release/*' });
    const list = await api(`${hooks()}?per_page=1`);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.headers.get('x-total')).toBe('2');
    expect(list.headers.get('x-next-page')).toBe('2');
    expect(list.body[0]).not.toHaveProperty('url_variables');
    expect(list.body[0]).not.toHaveProperty('custom_headers');

    const shown = await api(`${hooks()}/${created.body.id}`);
    expect([shown.status, shown.body.name, shown.body.url_variables]).toEqual([200, 'second', [{ key: 'path' }]]);

    const edited = await api(`${hooks()}/${created.body.id}`, json('PUT', { push_events: false, custom_headers: [{ key: 'X-Other', value: '1' }], branch_filter_strategy: 'all_branches' }));
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      push_events: false, tag_push_events: true, custom_headers: [{ key: 'X-Team' }, { key: 'X-Other' }],
      branch_filter_strategy: 'all_branches', push_events_branch_filter: null,
    });

    // `destroy_conditionally!`: edited after the client's If-Unmodified-Since → 412 and kept; a later date deletes.
    const stale = await fetch(`${stack.apiUrl}${hooks()}/${created.body.id}`, {
      method: 'DELETE', headers: { 'PRIVATE-TOKEN': tokens.maint!, 'If-Unmodified-Since': new Date(Date.now() - 3_600_000).toUTCString() },
    });
    expect([stale.status, await stale.json()]).toEqual([412, { message: '412 Precondition Failed' }]);
    expect((await api(`${hooks()}/${created.body.id}`)).status).toBe(200);
    const del = await fetch(`${stack.apiUrl}${hooks()}/${created.body.id}`, {
      method: 'DELETE', headers: { 'PRIVATE-TOKEN': tokens.maint!, 'If-Unmodified-Since': new Date(Date.now() + 60_000).toUTCString() },
    });
    expect([del.status, (await del.json()).id]).toEqual([200, created.body.id]);
    expect(await api(`${hooks()}/${created.body.id}`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // Idempotent (spec 4.7): no such hook any more → 204 with no body.
    expect(await api(`${hooks()}/${created.body.id}`, { method: 'DELETE' })).toMatchObject({ status: 204 });
  });

  it('refuses anonymous (401), a Developer even on GET (403), and another project\'s hook (404)', async () => {
    expect(await api(hooks(), { as: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await api(hooks(), { as: 'dev' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(`${hooks()}/${ids.hook}`, { as: 'dev' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(hooks(), json('POST', { url: `${receiver.url}/x` }, 'dev'))).toMatchObject({ status: 403 });
    expect(await api(`${hooks(ids.other)}/${ids.hook}`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await api(`${hooks(ids.other)}/${ids.hook}`, json('PUT', { name: 'x' }))).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await api(hooks(999999))).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await api(`/projects/${ids.app}/hooks`, { method: 'DELETE' })).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
  });

  it("answers GitLab's validation errors and writes nothing", async () => {
    const count = async () => Number((await api(hooks())).headers.get('x-total'));
    const before = await count();
    const post = (body: Record<string, unknown>) => api(hooks(), json('POST', body));
    expect(await post({ name: 'no url' })).toMatchObject({ status: 400, body: { error: 'url is missing' } });
    expect(await post({ url: 'ftp://example.com/h' })).toMatchObject({ status: 422, body: { error: 'Invalid url given' } });
    expect(await post({ url: 'not a url' })).toMatchObject({ status: 422, body: { error: 'Invalid url given' } });
    expect(await post({ url: `${receiver.url}/{missing}` })).toMatchObject({ status: 422, body: { error: 'Invalid url given' } });
    expect(await post({ url: `${receiver.url}/f`, push_events_branch_filter: 'bad..name' })).toMatchObject({ status: 422, body: { error: 'Invalid branch filter given' } });
    expect(await post({ url: `${receiver.url}/f`, branch_filter_strategy: 'regex', push_events_branch_filter: '(' }))
      .toMatchObject({ status: 422, body: { error: 'Invalid branch filter given' } });
    expect(await post({ url: `${receiver.url}/f`, branch_filter_strategy: 'glob' })).toMatchObject({ status: 400, body: { error: 'branch_filter_strategy does not have a valid value' } });
    expect(await post({ url: `${receiver.url}/f`, token: 'a\nb' })).toMatchObject({ status: 422, body: { error: 'Token is invalid' } });
    expect(await post({ url: `${receiver.url}/f`, custom_webhook_template: 'x'.repeat(4097) }))
      .toMatchObject({ status: 422, body: { error: 'Custom webhook template is too long (maximum is 4096 characters)' } });
    expect(await post({ url: `${receiver.url}/f`, url_variables: [{ key: 'a' }] })).toMatchObject({ status: 400, body: { error: 'url_variables[0][value] is missing' } });
    expect(await count()).toBe(before);

    const put = (body: Record<string, unknown>) => api(`${hooks()}/${ids.hook}`, json('PUT', body));
    expect(await put({})).toMatchObject({ status: 400, body: { error: 'No parameters provided' } });
    expect(await put({ url: 'ftp://example.com' })).toMatchObject({ status: 422, body: { error: 'Invalid url given' } });
    expect(await put({ token: 'x\ny' })).toMatchObject({ status: 422, body: { message: { token: ['is invalid'] } } });
    expect(await put({ push_events_branch_filter: 'a b' })).toMatchObject({ status: 422, body: { error: 'Invalid branch filter given' } });
    expect((await api(`${hooks()}/${ids.hook}`)).body).toMatchObject({ url: `${receiver.url}/a`, push_events_branch_filter: null });
  });

  it('local URLs follow the instance setting (identity application settings)', async () => {
    expect((await api('/application/settings', json('PUT', { allow_local_requests_from_web_hooks_and_services: false }, 'root'))).status).toBe(200);
    expect(await api(hooks(), json('POST', { url: `${receiver.url}/local` }))).toMatchObject({ status: 422, body: { error: 'Invalid url given' } });
    expect((await api('/application/settings', json('PUT', { allow_local_requests_from_web_hooks_and_services: true }, 'root'))).status).toBe(200);
    expect((await api(hooks(), json('POST', { url: `${receiver.url}/local` }))).status).toBe(201);
  });

  it('tests a hook: 201 on 2xx, 422 with the receiver body otherwise, 400 for an unknown trigger, then 429', async () => {
    receiver.respond('/a', ({ nth }) => (nth === 1 ? 200 : { status: 500, body: 'receiver exploded' }));
    expect(await api(`${hooks()}/${ids.hook}/test/nope`, { method: 'POST' })).toMatchObject({ status: 400, body: { error: 'trigger does not have a valid value' } });
    expect(await api(`${hooks()}/${ids.hook}/test/push_events`, { method: 'POST', as: 'dev' })).toMatchObject({ status: 403 });
    expect(await api(`${hooks()}/${ids.hook}/test/push_events`, { method: 'POST' })).toMatchObject({ status: 201, body: { message: '201 Created' } });
    const [delivered] = receiver.at('/a');
    expect(delivered!.headers['x-gitlab-token']).toBe('super-secret-token');
    expect(delivered!.headers['x-gitlab-event']).toBe('Push Hook');
    expect(await api(`${hooks()}/${ids.hook}/test/push_events`, { method: 'POST' })).toMatchObject({ status: 422, body: { message: 'receiver exploded' } });
    // The unknown trigger was refused by param validation before the limit: this is the third counted test of 3.
    expect(await api(`${hooks()}/${ids.hook}/test/push_events`, { method: 'POST' })).toMatchObject({ status: 422 });
    const limited = await api(`${hooks()}/${ids.hook}/test/push_events`, { method: 'POST' });
    expect(limited).toMatchObject({ status: 429, body: { message: { error: 'This endpoint has been requested too many times. Try again later.' } } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    const events = await api(`${hooks()}/${ids.hook}/events`);
    expect(events.status).toBe(200);
    expect(events.body.length).toBeGreaterThanOrEqual(2);
    expect(await api(`${hooks()}/${ids.hook}/events?per_page=21`)).toMatchObject({ status: 400, body: { error: 'per_page does not have a valid value' } });
    expect(await api(`${hooks()}/${ids.hook}/events?status=999`)).toMatchObject({ status: 400, body: { error: 'status does not have a valid value' } });
  });

  it('resends a logged delivery (201 with the receiver status), refused once the url changed (422)', async () => {
    const events = (await api(`${hooks()}/${ids.hook}/events`)).body as { id: number; url: string; response_status: string }[];
    const failed = events.find((e) => e.response_status === '500')!;
    expect(failed.url).toBe(`${receiver.url}/a`);
    receiver.respond('/a', () => 200);
    expect(await api(`${hooks()}/${ids.hook}/events/${failed.id}/resend`, { method: 'POST', as: 'dev' })).toMatchObject({ status: 403 });
    expect(await api(`${hooks()}/${ids.hook}/events/999999/resend`, { method: 'POST' })).toMatchObject({ status: 404 });
    expect(await api(`${hooks()}/${ids.hook}/events/${failed.id}/resend`, { method: 'POST' })).toMatchObject({ status: 201, body: { response_status: 200 } });
    expect((await api(`${hooks()}/${ids.hook}`, json('PUT', { url: `${receiver.url}/moved` }))).status).toBe(200);
    expect(await api(`${hooks()}/${ids.hook}/events/${failed.id}/resend`, { method: 'POST' }))
      .toMatchObject({ status: 422, body: { message: 'The hook URL has changed, and this log entry cannot be retried' } });
  });

  it('never answered the token', () => {
    expect(bodies.length).toBeGreaterThan(20);
    for (const b of bodies) expect(b).not.toContain('super-secret-token');
  });
});
