import { buildEnvelope, createKafka, encodeEnvelope, ensureTopics, EventTypes, topicFor } from '@glp/events';
import { repositoryEventsV1 } from '@glp/proto';
import { createLogger } from '@glp/service-kit';
import { eventually, infraFromEnv, startStack, type RunningStack } from '@glp/testing';

const TOKEN = /^GR1348941[A-Za-z0-9_-]{20}$/;
const STATISTICS_KEYS = [
  'commit_count', 'storage_size', 'repository_size', 'wiki_size', 'lfs_objects_size', 'job_artifacts_size', 'pipeline_artifacts_size',
  'packages_size', 'snippets_size', 'uploads_size', 'container_registry_size',
];

/**
 * Project statistics (statistics=true, Reporter+; RepositoryStatisticsChanged from repo-admin), the runners token (those
 * who administer the project, single-project answers only, never logged), license=true, the administrator-only size
 * orderings and the spec 4.4 attributes that are now kept, over HTTP.
 */
describe('project statistics, runners token, license and size orderings', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const userIds: Record<string, number> = {};
  const seenRunnersTokens = new Set<string>();
  let pub: Record<string, unknown> & { id: number };
  let priv: Record<string, unknown> & { id: number };

  const api = (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return JSON.parse(text);
  };
  const get = async (path: string, as?: string | null) => expectJson(await api(path, { as }), 200);
  const remember = (body: { runners_token?: unknown }) => {
    if (typeof body.runners_token === 'string') seenRunnersTokens.add(body.runners_token);
    return body;
  };

  /** Publishes repo-admin's measurement of a project as repo-admin will: topic gitlab.repo_admin.events, key project:<id>. */
  const publishMeasurement = async (m: Partial<repositoryEventsV1.RepositoryStatisticsChanged> & { projectId: number }) => {
    const logger = createLogger('e2e-stats', 'silent');
    const kafka = createKafka({ brokers: infraFromEnv().kafkaBrokers, clientId: 'e2e-stats', logger });
    const topic = topicFor('repo-admin', stack.topicPrefix);
    await ensureTopics(kafka, [topic]);
    const envelope = buildEnvelope({
      aggregateType: 'project', aggregateKey: `project:${m.projectId}`, payloadType: EventTypes.RepositoryStatisticsChanged,
      payload: repositoryEventsV1.RepositoryStatisticsChanged.fromPartial(m),
    });
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic, messages: [{ key: envelope.aggregateKey, value: encodeEnvelope(envelope) }] });
    } finally {
      await producer.disconnect();
    }
  };

  beforeAll(async () => {
    // Verbose logs: the runners token must not reach any of them.
    // This file plays repo-admin's part on Kafka (its measurements): the real one, which measures every new repository, stays out.
    stack = await startStack({ name: 'e2e_stats', env: { LOG_LEVEL: 'trace', ACCESS_LOG_LEVEL: 'info' }, without: ['repo-admin'] });
    for (const name of ['stowner', 'stmaint', 'stdev', 'strep', 'stguest', 'ststranger']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      userIds[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    pub = remember(await expectJson(await api('/projects', { ...json('POST', { name: 'st-pub', visibility: 'public' }), as: 'stowner' }), 201)) as typeof pub;
    priv = remember(await expectJson(await api('/projects', { ...json('POST', { name: 'st-priv', visibility: 'private' }), as: 'stowner' }), 201)) as typeof priv;
    for (const [name, level] of [['stmaint', 40], ['stdev', 30], ['strep', 20], ['stguest', 10]] as const) {
      for (const p of [pub, priv]) await expectJson(await api(`/projects/${p.id}/members`, { ...json('POST', { user_id: userIds[name], access_level: level }), as: 'stowner' }), 201);
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  describe('statistics', () => {
    it('GET /projects/:id?statistics=true shows them to Reporters and above and administrators only', async () => {
      for (const who of ['strep', 'stdev', 'stmaint', 'stowner', undefined]) {
        const body = await get(`/projects/${priv.id}?statistics=true`, who);
        expect(Object.keys(body.statistics)).toEqual(STATISTICS_KEYS);
        expect(body.statistics).toEqual(Object.fromEntries(STATISTICS_KEYS.map((k) => [k, 0])));
      }
      for (const who of ['stguest', 'ststranger', null]) expect(await get(`/projects/${pub.id}?statistics=true`, who)).not.toHaveProperty('statistics');
      expect(await get(`/projects/${priv.id}`, 'strep')).not.toHaveProperty('statistics');
      expect(await get(`/projects/${priv.id}?statistics=false`, 'strep')).not.toHaveProperty('statistics');
    });

    it('listings show them per project where the caller is Reporter+, never to guests, strangers or anonymous callers, nor with simple=true', async () => {
      const listed = async (who?: string | null, extra = '') =>
        Object.fromEntries((await get(`/projects?search=st-p&statistics=true&order_by=id&sort=asc${extra}`, who)).map((p: { name: string; statistics?: { storage_size: number } }) => [p.name, p.statistics?.storage_size ?? 'none']));
      expect(await listed('strep')).toEqual({ 'st-pub': 0, 'st-priv': 0 });
      expect(await listed(undefined)).toEqual({ 'st-pub': 0, 'st-priv': 0 });
      expect(await listed('stguest')).toEqual({ 'st-pub': 'none', 'st-priv': 'none' });
      expect(await listed('ststranger')).toEqual({ 'st-pub': 'none' });
      expect(await listed(null)).toEqual({ 'st-pub': 'none' });
      expect(await listed('strep', '&simple=true')).toEqual({ 'st-pub': 'none', 'st-priv': 'none' });
      expect(await get(`/users/${userIds.stowner}/projects?statistics=true&order_by=id&sort=asc`, 'strep')).toEqual([
        expect.objectContaining({ name: 'st-pub', statistics: expect.objectContaining({ commit_count: 0 }) }),
        expect.objectContaining({ name: 'st-priv', statistics: expect.objectContaining({ commit_count: 0 }) }),
      ]);
    });

    it("follows repo-admin's RepositoryStatisticsChanged from Kafka; storage_size is GitLab's sum", async () => {
      await publishMeasurement({ projectId: pub.id, commitCount: 42, repositorySize: 5_000_000, wikiSize: 70_000, lfsObjectsSize: 1_000, uploadsSize: 300 });
      await publishMeasurement({ projectId: priv.id, commitCount: 3, repositorySize: 2_000, wikiSize: 0, lfsObjectsSize: 0, uploadsSize: 0 });
      const shown = await eventually(async () => {
        const [a, b] = [await get(`/projects/${pub.id}?statistics=true`, 'strep'), await get(`/projects/${priv.id}?statistics=true`, 'strep')];
        return a.statistics.commit_count === 42 && b.statistics.commit_count === 3 ? a.statistics : undefined;
      }, 30_000);
      expect(shown).toEqual({
        commit_count: 42, storage_size: 5_071_300, repository_size: 5_000_000, wiki_size: 70_000, lfs_objects_size: 1_000,
        job_artifacts_size: 0, pipeline_artifacts_size: 0, packages_size: 0, snippets_size: 0, uploads_size: 300, container_registry_size: 0,
      });
    });
  });

  describe('administrator-only size orderings', () => {
    // st-pub (older, smaller id) is the larger project: a size ordering and the default ordering disagree.
    const order = async (query: string, who?: string) => (await get(`/projects?search=st-p&${query}`, who)).map((p: { name: string }) => p.name);

    it('orders administrators by the statistics, with the id tie-breaker, in both directions', async () => {
      await eventually(async () => (await get(`/projects/${priv.id}?statistics=true`)).statistics.commit_count === 3, 30_000);
      expect(await order('order_by=storage_size&sort=desc')).toEqual(['st-pub', 'st-priv']);
      expect(await order('order_by=storage_size&sort=asc')).toEqual(['st-priv', 'st-pub']);
      expect(await order('order_by=repository_size')).toEqual(['st-pub', 'st-priv']); // sort defaults to desc
      expect(await order('order_by=wiki_size&sort=asc')).toEqual(['st-priv', 'st-pub']);
      // packages_size: both 0, so the id decides in the asked direction
      expect(await order('order_by=packages_size&sort=asc')).toEqual(['st-pub', 'st-priv']);
      expect(await order('order_by=packages_size&sort=desc')).toEqual(['st-priv', 'st-pub']);
    });

    it('silently gives anyone else the default created_at ordering (GitLab: verify_statistics_order_by_projects!)', async () => {
      expect(await order('order_by=storage_size&sort=desc', 'stowner')).toEqual(['st-priv', 'st-pub']);
      expect(await order('order_by=storage_size&sort=asc', 'stowner')).toEqual(['st-pub', 'st-priv']);
      expect(await order('order_by=repository_size&sort=desc', 'strep')).toEqual(['st-priv', 'st-pub']);
      const anonymous = await expectJson(await api('/projects?search=st-p&order_by=storage_size&sort=asc', { as: null }), 200);
      expect(anonymous.map((p: { name: string }) => p.name)).toEqual(['st-pub']);
      expect(await expectJson(await api('/projects?order_by=commit_count'), 400)).toEqual({ error: 'order_by does not have a valid value' });
    });
  });

  describe('runners_token', () => {
    it('is generated per project and shown to Maintainers, Owners and administrators on GET /projects/:id', async () => {
      expect(pub.runners_token).toMatch(TOKEN); // the create answer (the creator administers the project)
      expect(priv.runners_token).toMatch(TOKEN);
      expect(pub.runners_token).not.toBe(priv.runners_token);
      for (const who of ['stowner', 'stmaint', undefined]) {
        expect(remember(await get(`/projects/${pub.id}`, who))).toHaveProperty('runners_token', pub.runners_token);
      }
      for (const who of ['stdev', 'strep', 'stguest', 'ststranger', null]) expect(await get(`/projects/${pub.id}`, who)).not.toHaveProperty('runners_token');
    });

    it('is on every full answer for those who administer the project, listings included (GitLab 18), never for others', async () => {
      const edited = remember(await expectJson(await api(`/projects/${pub.id}`, { ...json('PUT', { description: 'edited' }), as: 'stmaint' }), 200));
      expect(edited).toHaveProperty('runners_token', pub.runners_token);
      for (const who of ['stowner', undefined]) {
        const listed = await get('/projects?search=st-p', who);
        expect(listed).toHaveLength(2);
        for (const p of listed) expect(remember(p)).toHaveProperty('runners_token', p.id === pub.id ? pub.runners_token : priv.runners_token);
        for (const p of await get(`/users/${userIds.stowner}/projects`, who)) expect(p).toHaveProperty('runners_token');
        for (const p of await get('/projects?search=st-p&simple=true', who)) expect(p).not.toHaveProperty('runners_token');
      }
      for (const p of await get('/projects?search=st-p', 'stdev')) expect(p).not.toHaveProperty('runners_token');
      const starred = await expectJson(await api(`/projects/${pub.id}/star`, { method: 'POST', as: 'stowner' }), 201);
      expect(starred).toHaveProperty('runners_token', pub.runners_token);
      const starredByDev = await expectJson(await api(`/projects/${pub.id}/star`, { method: 'POST', as: 'stdev' }), 201);
      expect(starredByDev).not.toHaveProperty('runners_token');
    });
  });

  describe('license=true', () => {
    it('adds license_url and license (null: no license file is detected) to GET /projects/:id only', async () => {
      for (const who of ['stowner', 'ststranger', null]) {
        const body = await get(`/projects/${pub.id}?license=true`, who);
        expect(body).toMatchObject({ license_url: null, license: null });
        expect(Object.keys(body).indexOf('license_url')).toBe(Object.keys(body).indexOf('forks_count') + 1);
        const plain = await get(`/projects/${pub.id}`, who);
        expect(plain).not.toHaveProperty('license_url');
        expect(plain).not.toHaveProperty('license');
      }
      for (const p of await get('/projects?search=st-p&license=true')) {
        expect(p).not.toHaveProperty('license');
        expect(p).not.toHaveProperty('license_url');
      }
    });
  });

  describe('spec 4.4 attributes that are now kept', () => {
    it('round-trips container_expiration_policy_attributes, the model feature levels (PUT then GET)', async () => {
      const defaults = await get(`/projects/${priv.id}`, 'stowner');
      expect(defaults.container_expiration_policy).toEqual({
        cadence: '1d', enabled: false, keep_n: 10, older_than: '90d', name_regex: '.*', name_regex_keep: null, next_run_at: expect.any(String),
      });
      expect(Date.parse(defaults.container_expiration_policy.next_run_at)).toBe(Date.parse(defaults.created_at) + 86_400_000);
      expect(defaults).toMatchObject({ model_experiments_access_level: 'enabled', model_registry_access_level: 'enabled' });
      const saved = Date.now();
      const put = await expectJson(await api(`/projects/${priv.id}`, {
        ...json('PUT', {
          container_expiration_policy_attributes: { cadence: '7d', enabled: true, keep_n: 5, older_than: '14d', name_regex: '.*-tmp', name_regex_keep: '^keep', unknown: 'dropped' },
          model_experiments_access_level: 'private', model_registry_access_level: 'disabled', show_default_award_emojis: false,
        }),
        as: 'stmaint',
      }), 200);
      const after = await get(`/projects/${priv.id}`, 'stowner');
      for (const body of [put, after]) {
        expect(body.container_expiration_policy).toEqual({
          cadence: '7d', enabled: true, keep_n: 5, older_than: '14d', name_regex: '.*-tmp', name_regex_keep: '^keep', next_run_at: expect.any(String),
        });
        expect(body).toMatchObject({ model_experiments_access_level: 'private', model_registry_access_level: 'disabled' });
        expect(body).not.toHaveProperty('show_default_award_emojis'); // kept, but GitLab's API does not show it
      }
      const next = Date.parse(after.container_expiration_policy.next_run_at);
      expect(next).toBeGreaterThanOrEqual(saved + 7 * 86_400_000 - 5_000);
      expect(next).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000 + 5_000);
      // keep_n and older_than may be cleared (null)
      const cleared = await expectJson(await api(`/projects/${priv.id}`, { ...json('PUT', { container_expiration_policy_attributes: { keep_n: null, older_than: null } }), as: 'stmaint' }), 200);
      expect(cleared.container_expiration_policy).toMatchObject({ cadence: '7d', keep_n: null, older_than: null });
      expect((await get(`/projects/${priv.id}`, 'stowner')).container_expiration_policy).toMatchObject({ keep_n: null, older_than: null });
    });

    it('shows build_coverage_regex (spec 2.5, the transfer response) once set, null before', async () => {
      expect(await get(`/projects/${priv.id}`, 'stowner')).toHaveProperty('build_coverage_regex', null);
      const put = await expectJson(await api(`/projects/${priv.id}`, { ...json('PUT', { description: 'coverage', build_coverage_regex: 'Total: (\\d+)%' }), as: 'stmaint' }), 200);
      expect(put).toHaveProperty('build_coverage_regex', 'Total: (\\d+)%');
      expect(await get(`/projects/${priv.id}`, 'stowner')).toHaveProperty('build_coverage_regex', 'Total: (\\d+)%');
    });

    it("validates them like GitLab's models and params, changing nothing", async () => {
      const before = await get(`/projects/${priv.id}`, 'stowner');
      const put = async (body: unknown, status: number) => expectJson(await api(`/projects/${priv.id}`, { ...json('PUT', body), as: 'stmaint' }), status);
      expect(await put({ container_expiration_policy_attributes: { cadence: '2d', older_than: '1y', keep_n: 7 } }, 400)).toEqual({
        message: {
          'container_expiration_policy.cadence': ['is not included in the list'],
          'container_expiration_policy.older_than': ['is not included in the list'],
          'container_expiration_policy.keep_n': ['is not included in the list'],
        },
      });
      expect(await put({ container_expiration_policy_attributes: { enabled: true, name_regex: '' } }, 400))
        .toEqual({ message: { 'container_expiration_policy.name_regex': ["can't be blank"] } });
      expect(await put({ container_expiration_policy_attributes: { name_regex: '(unclosed' } }, 400))
        .toEqual({ message: { 'container_expiration_policy.name_regex': [expect.stringMatching(/^not valid RE2 syntax: /)] } });
      expect(await put({ container_expiration_policy_attributes: { keep_n: 'many' } }, 400)).toEqual({ error: 'container_expiration_policy_attributes[keep_n] is invalid' });
      expect(await put({ container_expiration_policy_attributes: 'nope' }, 400)).toEqual({ error: 'container_expiration_policy_attributes is invalid' });
      expect(await put({ model_registry_access_level: 'public' }, 400)).toEqual({ error: 'model_registry_access_level does not have a valid value' });
      const after = await get(`/projects/${priv.id}`, 'stowner');
      expect(after.container_expiration_policy).toEqual(before.container_expiration_policy);
      expect(after.updated_at).toBe(before.updated_at);
    });

    it('takes them on create too', async () => {
      const created = remember(await expectJson(await api('/projects', {
        ...json('POST', { name: 'st-created', container_expiration_policy_attributes: { cadence: '14d', enabled: true }, model_experiments_access_level: 'disabled' }),
        as: 'stowner',
      }), 201));
      expect(created.container_expiration_policy).toMatchObject({ cadence: '14d', enabled: true, keep_n: 10 });
      expect(Date.parse(created.container_expiration_policy.next_run_at)).toBe(Date.parse(created.created_at) + 14 * 86_400_000);
      expect((await get(`/projects/${created.id}`, 'stowner')).model_experiments_access_level).toBe('disabled');
    });
  });

  it('never writes a runners token to the logs', async () => {
    expect(seenRunnersTokens.size).toBeGreaterThanOrEqual(3);
    await stack.stop();
    const logs = stack.logs();
    expect(logs.length).toBeGreaterThan(1000); // trace logs were written, so the absence below means something
    for (const token of seenRunnersTokens) expect(logs).not.toContain(token);
  });
});
