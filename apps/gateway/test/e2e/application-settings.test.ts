import { EventTypes, unpackPayload } from '@glp/events';
import { eventually, readServiceEvents, startStack, type RunningStack, type ServiceEvents } from '@glp/testing';

/**
 * GET/PUT /application/settings (GitLab's lib/api/settings.rb, administrators only): the settings identity keeps,
 * seeded from ALLOW_LOCAL_WEBHOOKS / OUTBOUND_ALLOWLIST on first start, GitLab's ApplicationSetting entity, GitLab's
 * 401/403/400 answers, and ApplicationSettingsChanged on Kafka (topic identity) with the new values.
 */
describe('application settings through the gateway', () => {
  let stack: RunningStack;
  let events: ServiceEvents | undefined;
  let userToken: string;
  const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.token === undefined ? stack.rootToken : init.token;
    if (token) headers.set('PRIVATE-TOKEN', token);
    if (typeof init.body === 'string' && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const put = (body: Record<string, unknown>, token?: string | null) => api('/application/settings', { method: 'PUT', body: JSON.stringify(body), token });
  const expectJson = async (res: Response, status: number) => {
    const body = await res.json();
    expect([res.status, body]).toEqual([status, expect.anything()]);
    return body;
  };
  const settingsEvents = () => events!.seen.filter((e) => e.eventType === EventTypes.ApplicationSettingsChanged.typeName)
    .map((e) => ({ key: e.aggregateKey, settings: unpackPayload(e, EventTypes.ApplicationSettingsChanged) }));

  beforeAll(async () => {
    stack = await startStack({
      name: 'appsettings', without: ['hooks', 'webhook-dispatcher'],
      env: { ALLOW_LOCAL_WEBHOOKS: 'true', OUTBOUND_ALLOWLIST: 'seed.example.com, 10.0.0.0/8' },
    });
    events = await readServiceEvents(stack, 'identity', 'e2e-appsettings-reader');
    const user = await expectJson(await api('/users', { method: 'POST', body: JSON.stringify({ username: 'plain', name: 'Plain', email: 'plain@example.com', password: 'plain-password-1' }) }), 201);
    userToken = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, { method: 'POST', body: JSON.stringify({ name: 't', scopes: ['api'] }) }), 201)).token;
  }, 120_000);
  afterAll(async () => {
    await events?.stop();
    await stack?.stop();
  });

  it('answers the entity with the start-up defaults from the environment (python-gitlab gl.settings.get(): an object with id)', async () => {
    const body = await expectJson(await api('/application/settings'), 200);
    expect(body).toEqual({
      id: 1,
      default_projects_limit: 100000,
      signup_enabled: false,
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_snippet_visibility: 'private',
      restricted_visibility_levels: [],
      hashed_storage_enabled: true,
      mirror_available: true,
      push_event_hooks_limit: 3,
      allow_local_requests_from_web_hooks_and_services: true,
      allow_local_requests_from_hooks_and_services: true,
      allow_local_requests_from_system_hooks: true,
      outbound_local_requests_whitelist: ['seed.example.com', '10.0.0.0/8'],
      outbound_local_requests_allowlist_raw: 'seed.example.com\n10.0.0.0/8',
      deny_all_requests_except_allowed: false,
      deletion_adjourned_period: 7,
    });
    // The row's creation went out as an event too.
    const first = await eventually(async () => settingsEvents()[0], 20_000);
    expect(first).toMatchObject({ key: 'application_settings', settings: { allowLocalRequestsFromWebHooksAndServices: true, outboundLocalRequestsAllowlist: ['seed.example.com', '10.0.0.0/8'] } });
  });

  it('updates what was sent (comma list, booleans coerced as Grape), round-trips, and publishes ApplicationSettingsChanged', async () => {
    const updated = await expectJson(await put({
      allow_local_requests_from_web_hooks_and_services: 'false',
      outbound_local_requests_whitelist: 'a.example.com, 192.168.0.0/16,[::1]:8080',
      deny_all_requests_except_allowed: 1,
    }), 200);
    expect(updated).toMatchObject({
      id: 1,
      allow_local_requests_from_web_hooks_and_services: false,
      allow_local_requests_from_hooks_and_services: false,
      allow_local_requests_from_system_hooks: true,
      outbound_local_requests_whitelist: ['a.example.com', '192.168.0.0/16', '[::1]:8080'],
      deny_all_requests_except_allowed: true,
    });
    expect(await expectJson(await api('/application/settings'), 200)).toEqual(updated);
    const last = await eventually(async () => {
      const events = settingsEvents();
      return events.length >= 2 ? events[events.length - 1] : undefined;
    }, 20_000);
    expect(last).toEqual({
      key: 'application_settings',
      settings: {
        allowLocalRequestsFromWebHooksAndServices: false, allowLocalRequestsFromSystemHooks: true,
        outboundLocalRequestsAllowlist: ['a.example.com', '192.168.0.0/16', '[::1]:8080'], denyAllRequestsExceptAllowed: true,
        deletionAdjournedPeriod: 7,
      },
    });

    // An array under the newer name, the legacy boolean name, and the raw text form.
    expect(await expectJson(await put({ outbound_local_requests_allowlist: ['x.test:80'], allow_local_requests_from_hooks_and_services: true }), 200))
      .toMatchObject({ outbound_local_requests_whitelist: ['x.test:80'], allow_local_requests_from_web_hooks_and_services: true });
    expect(await expectJson(await put({ outbound_local_requests_allowlist_raw: 'one.test\ntwo.test;three.test' }), 200))
      .toMatchObject({ outbound_local_requests_whitelist: ['one.test', 'two.test', 'three.test'], outbound_local_requests_allowlist_raw: 'one.test\ntwo.test\nthree.test' });
    // An empty list clears it.
    expect((await expectJson(await put({ outbound_local_requests_whitelist: '' }), 200)).outbound_local_requests_whitelist).toEqual([]);
  });

  it('is for administrators only: 401 anonymous, 403 a user (GET and PUT), nothing changed', async () => {
    const before = await expectJson(await api('/application/settings'), 200);
    expect(await expectJson(await api('/application/settings', { token: null }), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await expectJson(await put({ deny_all_requests_except_allowed: true }, null), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await expectJson(await api('/application/settings', { token: userToken }), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await put({ deny_all_requests_except_allowed: false }, userToken), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api('/application/settings'), 200)).toEqual(before);
  });

  it("answers GitLab's 400s and writes nothing", async () => {
    const before = await expectJson(await api('/application/settings'), 200);
    const eventsBefore = settingsEvents().length;
    const none = await expectJson(await put({ signup_enabled: false }), 400);
    expect(none.error).toMatch(/^allow_local_requests_from_web_hooks_and_services, .*deny_all_requests_except_allowed, deletion_adjourned_period are missing, at least one parameter must be provided$/);
    expect(await expectJson(await put({ allow_local_requests_from_web_hooks_and_services: 'maybe' }), 400))
      .toEqual({ error: 'allow_local_requests_from_web_hooks_and_services is invalid' });
    const bad = await expectJson(await put({ allow_local_requests_from_web_hooks_and_services: true, outbound_local_requests_whitelist: 'ok.test,not a host' }), 400);
    expect(Object.keys(bad.message)).toEqual(['outbound_local_requests_whitelist']);
    expect(bad.message.outbound_local_requests_whitelist[0]).toMatch(/not a host/);
    const tooMany = await expectJson(await put({ outbound_local_requests_whitelist: Array.from({ length: 1001 }, (_, i) => `h${i}.test`) }), 400);
    expect(tooMany).toEqual({ message: { outbound_local_requests_whitelist: ['is too long (maximum is 1000 entries)'] } });
    expect(await expectJson(await put({ outbound_local_requests_whitelist: '<b>x</b>' }), 400))
      .toEqual({ message: { outbound_local_requests_whitelist: ['entries cannot contain HTML tags'] } });
    expect(await expectJson(await api('/application/settings'), 200)).toEqual(before);
    await new Promise((r) => setTimeout(r, 500));
    expect(settingsEvents().length).toBe(eventsBefore);
  });
});
