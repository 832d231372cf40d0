import { Metadata } from '@grpc/grpc-js';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { hookEventsV1, hooksV1, identityV1, projectEventsV1, projectsV1 } from '@glp/proto';
import { SecretBox } from '@glp/secret-box';
import { createLogger, DomainError, systemActor, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import type { HooksDeps } from '../../src/app/deps';
import { onHookHealthChanged, onProjectDeleted } from '../../src/events/hook-consumers';
import { hooksService } from '../../src/grpc/hooks-service';
import { migrateHooks } from '../../src/migrations';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const maintainer = user(1, 'maintainer');
const developer = user(2, 'developer');
const admin = user(9, 'root', true);
const dispatcherActor = systemActor('webhook-dispatcher');
const P1: hooksV1.ProjectRef = { selector: { $case: 'id', value: 100 } };
const P2: hooksV1.ProjectRef = { selector: { $case: 'id', value: 200 } };
createLogger('hooks-test', 'silent');

describe('hooks service against PostgreSQL', () => {
  const schema = uniqueName('it_hooks');
  let pool: Pool;
  let service: ReturnType<typeof hooksService>;
  let deps: HooksDeps;
  let settings = { allowLocalRequestsFromWebHooksAndServices: false, outboundLocalRequestsAllowlist: [] as string[], denyAllRequestsExceptAllowed: false };
  let identityDown = false;
  const levels: Record<string, number> = { '100:1': 40, '100:2': 30, '200:1': 40 };
  const projects = {
    getProject: jest.fn(async (r: projectsV1.GetProjectRequest, o?: { actor?: Actor }) => {
      const id = r.selector?.$case === 'id' ? r.selector.value : 0;
      if (id !== 100 && id !== 200 && id !== 400) throw new DomainError('not_found', 'Project');
      return { project: projectsV1.Project.fromPartial({ id, callerAccessLevel: levels[`${id}:${o?.actor?.id}`] ?? 0 }) };
    }),
  };
  const identity = {
    getApplicationSettings: jest.fn(async () => {
      if (identityDown) throw new DomainError('unavailable', 'identity is down');
      return { settings: identityV1.ApplicationSettings.fromPartial(settings) };
    }),
  };
  const dispatcher = {
    executeTest: jest.fn(async () => ({ outcome: { ok: true, status: 200, message: '' } })),
    listDeliveries: jest.fn(async () => ({ events: [], total: 0 })),
    resendDelivery: jest.fn(async () => ({ outcome: { ok: false, status: 500, message: 'boom' } })),
  };
  const dns: Record<string, string[]> = { 'hooks.example.com': ['93.184.216.34'], 'internal.example.com': ['10.0.0.5'] };
  const events = async (type: string) => (await pool.query(`SELECT count(*)::int AS n FROM outbox WHERE event_type = 'gitlab.events.v1.${type}'`)).rows[0].n as number;
  const create = (input: hooksV1.HookInput, actor = maintainer, project = P1) => service.createHook({ project, input }, ctx(actor));

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateHooks(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    deps = {
      pool, projects, identity, dispatcher, secretBox: new SecretBox('test-key'), topic: 'test.hooks',
      resolve: async (host) => {
        const found = dns[host];
        if (!found) throw new Error('ENOTFOUND');
        return found;
      },
    } as never;
    service = hooksService(deps);
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('creates with GitLab defaults; the token and url credentials are sealed at rest and never answered', async () => {
    const { hook } = await create({ url: 'https://user:pw@hooks.example.com/h', token: 'tok-secret', events: {} });
    expect(hook).toMatchObject({
      projectId: 100, url: 'https://*****:*****@hooks.example.com/h', enableSslVerification: true, branchFilterStrategy: 'wildcard',
      pushEventsBranchFilter: '', alertStatus: 'executable',
    });
    expect(hook!.events).toMatchObject({ pushEvents: true, tagPushEvents: false, issuesEvents: false });
    expect(hook!.events!.confidentialNoteEvents).toBeUndefined(); // null until set
    expect(JSON.stringify(hook)).not.toContain('tok-secret');
    const raw = (await pool.query('SELECT * FROM hooks WHERE id = $1', [hook!.id])).rows[0];
    expect(JSON.stringify(raw)).not.toContain('tok-secret');
    expect(Buffer.from(raw.url_sealed).toString('latin1')).not.toContain('pw@');
    const [target] = (await service.getDeliveryTargets({ hookIds: [hook!.id] }, ctx(dispatcherActor))).targets;
    expect(target).toMatchObject({ url: 'https://user:pw@hooks.example.com/h', displayUrl: 'https://*****:*****@hooks.example.com/h', token: 'tok-secret' });
  });

  it('refuses developers (403), hidden projects (404) and another project\'s hook (404 Not found)', async () => {
    const { hook } = await create({ url: 'http://hooks.example.com/a', events: {} });
    expect((await rejection(service.listHooks({ project: P1, page: 1, perPage: 20 }, ctx(developer)))).kind).toBe('forbidden');
    expect((await rejection(service.getHook({ project: P1, hookId: hook!.id }, ctx(developer)))).kind).toBe('forbidden');
    const hidden = await rejection(service.getHook({ project: { selector: { $case: 'id', value: 300 } }, hookId: hook!.id }, ctx(maintainer)));
    expect([hidden.kind, hidden.message]).toEqual(['not_found', 'Project']);
    const other = await rejection(service.getHook({ project: P2, hookId: hook!.id }, ctx(maintainer)));
    expect([other.kind, other.message]).toEqual(['not_found', 'record']);
    expect((await service.getHook({ project: P1, hookId: hook!.id }, ctx(admin))).hook!.id).toBe(hook!.id);
  });

  it('validates URLs against the instance settings, and never treats an identity failure as allowed', async () => {
    const before = (await pool.query('SELECT count(*)::int AS n FROM hooks')).rows[0].n;
    for (const url of ['ftp://hooks.example.com', 'http://internal.example.com/x', 'http://127.0.0.1:9/x', 'not a url']) {
      const e = await rejection(create({ url, events: {} }));
      expect([e.kind, e.fields]).toEqual(['unprocessable', { error: ['Invalid url given'] }]);
    }
    const missing = await rejection(create({ url: 'http://hooks.example.com/{a}', events: {} }));
    expect(missing.fields).toEqual({ error: ['Invalid url given'] });
    identityDown = true;
    expect((await rejection(create({ url: 'http://hooks.example.com/ok', events: {} }))).kind).toBe('unavailable');
    identityDown = false;
    expect((await pool.query('SELECT count(*)::int AS n FROM hooks')).rows[0].n).toBe(before);
    // A host that does not resolve (yet) is saved, as GitLab's AddressableUrlValidator (no DNS rebinding check at save).
    expect((await create({ url: 'http://nowhere.example.com', events: {} })).hook!.url).toBe('http://nowhere.example.com');
    settings = { ...settings, allowLocalRequestsFromWebHooksAndServices: true };
    expect((await create({ url: 'http://127.0.0.1:9/x', events: {} })).hook!.url).toBe('http://127.0.0.1:9/x');
    settings = { ...settings, allowLocalRequestsFromWebHooksAndServices: false, outboundLocalRequestsAllowlist: ['internal.example.com'] };
    expect((await create({ url: 'http://internal.example.com/x', events: {} })).hook).toBeDefined();
    settings = { ...settings, outboundLocalRequestsAllowlist: [] };
  });

  it('maps model errors as GitLab does on create and on update', async () => {
    expect((await rejection(create({ url: 'http://hooks.example.com', token: 'a\nb', events: {} }))).fields).toEqual({ error: ['Token is invalid'] });
    expect((await rejection(create({ url: 'http://hooks.example.com', pushEventsBranchFilter: 'a..b', events: {} }))).fields)
      .toEqual({ error: ['Invalid branch filter given'] });
    expect((await rejection(create({ url: 'http://hooks.example.com', branchFilterStrategy: 'regex', pushEventsBranchFilter: '(', events: {} }))).fields)
      .toEqual({ error: ['Invalid branch filter given'] });
    const bad = await rejection(create({ url: 'http://hooks.example.com', branchFilterStrategy: 'glob', events: {} }));
    expect([bad.kind, bad.fields]).toEqual(['bad_request', { error: ['branch_filter_strategy does not have a valid value'] }]);
    const { hook } = await create({ url: 'http://hooks.example.com/u', events: {} });
    const token = await rejection(service.updateHook({ project: P1, hookId: hook!.id, input: { token: 'x\ny', events: {} } }, ctx(maintainer)));
    expect([token.kind, token.fields]).toEqual(['unprocessable', { token: ['is invalid'] }]);
    const empty = await rejection(service.updateHook({ project: P1, hookId: hook!.id, input: { events: {} } }, ctx(maintainer)));
    expect([empty.kind, empty.fields]).toEqual(['bad_request', { error: ['No parameters provided'] }]);
    const unknown = await rejection(service.updateHook({ project: P1, hookId: 999999, input: { events: {} } }, ctx(maintainer)));
    expect([unknown.kind, unknown.message]).toEqual(['not_found', 'record']);
  });

  it('updates: merges variables and headers, clears the token with a new url, re-enables, writes HookUpdated', async () => {
    const { hook } = await create({
      url: 'http://hooks.example.com/{path}', token: 't1', events: {},
      urlVariables: { items: [{ key: 'path', value: 'p1' }] }, customHeaders: { items: [{ key: 'X-A', value: 'a' }] },
    });
    await pool.query(`UPDATE hooks SET alert_status = 'disabled' WHERE id = $1`, [hook!.id]);
    const updatedBefore = await events('HookUpdated');
    const { hook: merged } = await service.updateHook({
      project: P1, hookId: hook!.id, input: { events: { tagPushEvents: true }, customHeaders: { items: [{ key: 'X-B', value: 'b' }] } },
    }, ctx(maintainer));
    expect(merged).toMatchObject({ urlVariableKeys: ['path'], customHeaderKeys: ['X-A', 'X-B'], alertStatus: 'executable' });
    expect(merged!.events).toMatchObject({ pushEvents: true, tagPushEvents: true });
    expect(await events('HookUpdated')).toBe(updatedBefore + 1);
    let [target] = (await service.getDeliveryTargets({ hookIds: [hook!.id] }, ctx(dispatcherActor))).targets;
    expect(target).toMatchObject({ url: 'http://hooks.example.com/p1', token: 't1' });
    await service.updateHook({ project: P1, hookId: hook!.id, input: { url: 'http://hooks.example.com/fixed', events: {} } }, ctx(maintainer));
    [target] = (await service.getDeliveryTargets({ hookIds: [hook!.id] }, ctx(dispatcherActor))).targets;
    expect(target).toMatchObject({ url: 'http://hooks.example.com/fixed', token: '', customHeaders: [] });
  });

  it('matches hooks for the dispatcher only: event flag, branch filter for pushes only', async () => {
    const P3: hooksV1.ProjectRef = { selector: { $case: 'id', value: 200 } };
    const a = (await create({ url: 'http://hooks.example.com/1', events: {} }, maintainer, P3)).hook!.id;
    const b = (await create({ url: 'http://hooks.example.com/2', pushEventsBranchFilter: 'release/*', events: { tagPushEvents: true } }, maintainer, P3)).hook!.id;
    const c = (await create({ url: 'http://hooks.example.com/3', branchFilterStrategy: 'regex', pushEventsBranchFilter: '^ma', events: {} }, maintainer, P3)).hook!.id;
    const match = (trigger: string, ref: string) => service.matchHooks({ projectId: 200, trigger, ref }, ctx(dispatcherActor)).then((r) => r.hookIds);
    expect(await match('push_events', 'refs/heads/main')).toEqual([a, c]);
    expect(await match('push_events', 'refs/heads/release/1')).toEqual([a, b]);
    expect(await match('tag_push_events', 'refs/tags/v1')).toEqual([b]);
    expect(await match('bogus', 'refs/heads/main')).toEqual([]);
    expect((await rejection(service.matchHooks({ projectId: 200, trigger: 'push_events', ref: '' }, ctx(admin)))).kind).toBe('forbidden');
    expect((await rejection(service.getDeliveryTargets({ hookIds: [a] }, ctx(systemActor('projects'))))).kind).toBe('forbidden');
  });

  it('tests a hook through the dispatcher; an unknown trigger is 400 before the hook is looked up', async () => {
    const { hook } = await create({ url: 'http://hooks.example.com/t', events: {} });
    const bad = await rejection(service.testHook({ project: P1, hookId: 999999, trigger: 'nope' }, ctx(maintainer)));
    expect([bad.kind, bad.fields]).toEqual(['bad_request', { error: ['trigger does not have a valid value'] }]);
    const { outcome } = await service.testHook({ project: P1, hookId: hook!.id, trigger: 'push_events' }, ctx(maintainer));
    expect(outcome).toEqual({ ok: true, status: 200, message: '' });
    expect(dispatcher.executeTest).toHaveBeenLastCalledWith({ hookId: hook!.id, projectId: 100, trigger: 'push_events', userId: 1 }, { actor: systemActor('hooks') });
    expect((await rejection(service.testHook({ project: P1, hookId: hook!.id, trigger: 'push_events' }, ctx(developer)))).kind).toBe('forbidden');
  });

  it('deletes with HookDeleted; health reports apply only when newer; a deleted project takes its hooks', async () => {
    const { hook } = await create({ url: 'http://hooks.example.com/d', events: {} });
    const deletedBefore = await events('HookDeleted');
    await service.deleteHook({ project: P1, hookId: hook!.id }, ctx(maintainer));
    expect(await events('HookDeleted')).toBe(deletedBefore + 1);
    // Idempotent: no such hook any more is no hook in the answer, and no event.
    expect(await service.deleteHook({ project: P1, hookId: hook!.id }, ctx(maintainer))).toEqual({ hook: undefined });
    expect(await events('HookDeleted')).toBe(deletedBefore + 1);

    const { hook: h2 } = await create({ url: 'http://hooks.example.com/e', events: {} });
    const until = new Date(Date.now() + 60_000);
    const health = (version: number, alertStatus: string) => withTransaction(pool, (c) =>
      onHookHealthChanged(c, hookEventsV1.HookHealthChanged.fromPartial({ hookId: h2!.id, projectId: 100, alertStatus, disabledUntil: until, version })));
    await health(2, 'temporarily_disabled');
    await health(1, 'executable'); // stale
    const seen = (await service.getHook({ project: P1, hookId: h2!.id }, ctx(maintainer))).hook!;
    expect(seen.alertStatus).toBe('temporarily_disabled');
    expect(seen.disabledUntil?.toISOString()).toBe(until.toISOString());

    const count = (await pool.query('SELECT count(*)::int AS n FROM hooks WHERE project_id = 100')).rows[0].n as number;
    const before = await events('HookDeleted');
    await withTransaction(pool, (c) => onProjectDeleted(c, 'test.hooks', projectEventsV1.ProjectDeleted.fromPartial({ projectId: 100 })));
    expect((await pool.query('SELECT count(*)::int AS n FROM hooks WHERE project_id = 100')).rows[0].n).toBe(0);
    expect(await events('HookDeleted')).toBe(before + count);
  });
  it('keeps a project to its hooks limit, even against concurrent creates: GitLab\'s 422 message, nothing stored beyond it', async () => {
    const P3: hooksV1.ProjectRef = { selector: { $case: 'id', value: 400 } };
    levels['400:1'] = 40;
    const limited = hooksService({ ...(deps as object), projectHooksLimit: 3 } as never);
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, (_, i) =>
      limited.createHook({ project: P3, input: { url: `http://hooks.example.com/c${i}`, events: {} } }, ctx(maintainer))));
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(3);
    for (const refused of attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected')) {
      expect([refused.reason.kind, refused.reason.fields]).toEqual(['unprocessable', { error: ['Maximum number of project hooks (3) exceeded'] }]);
    }
    expect((await pool.query('SELECT count(*)::int AS n FROM hooks WHERE project_id = 400')).rows[0].n).toBe(3);
    // With another error too, GitLab's sentence names both.
    const both = await rejection(limited.createHook({ project: P3, input: { url: 'http://hooks.example.com/d', customWebhookTemplate: 'x'.repeat(4097), events: {} } }, ctx(maintainer)));
    expect(both.fields?.error?.[0]).toMatch(/^Custom webhook template .+ and Maximum number of project hooks \(3\) exceeded$/);
    // An edit is not a create: the limit does not stop it.
    const [first] = (await limited.listHooks({ project: P3, page: 1, perPage: 20 }, ctx(maintainer))).hooks;
    expect((await limited.updateHook({ project: P3, hookId: first!.id, input: { name: 'renamed', events: {} } }, ctx(maintainer))).hook!.name).toBe('renamed');
  });
});
