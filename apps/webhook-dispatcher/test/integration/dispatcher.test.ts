import { Webhook } from 'standardwebhooks';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { buildEnvelope, decodeEnvelope, EventTypes, unpackPayload } from '@glp/events';
import { hooksV1, projectsV1, repositoryEventsV1 } from '@glp/proto';
import { createLogger } from '@glp/service-kit';
import { dropSchemas, eventually, infraFromEnv, startWebhookReceiver, uniqueName, type WebhookReceiver } from '@glp/testing';
import type { DispatcherDeps } from '../../src/app/deps';
import { DispatchLoop } from '../../src/app/dispatch-loop';
import { enqueuePush } from '../../src/app/enqueue-push';
import { executeTest } from '../../src/app/test-hook';
import { listDeliveries, resendDelivery } from '../../src/app/delivery-log';
import { WebhookSender } from '../../src/app/webhook-sender';
import type { WebhookUrlSettings as HookUrlSettings } from '@glp/url-guard';

const DEFAULT_HOOK_URL_SETTINGS: HookUrlSettings = { allowLocalRequests: false, allowlist: [], denyAllExceptAllowed: false };
import { migrateWebhookDispatcher } from '../../src/migrations';
import { claimDueDeliveries, dropOpenDeliveries } from '../../src/store/deliveries-store';
import { resetHealth } from '../../src/app/hook-health';

const logger = createLogger('dispatcher-test', 'silent');
const PROJECT_ID = 7;
const sha = (c: string) => c.repeat(40);

describe('webhook-dispatcher against PostgreSQL and a local receiver', () => {
  const schema = uniqueName('it_webhook_dispatcher');
  let pool: Pool;
  let receiver: WebhookReceiver;
  let settings: HookUrlSettings = { ...DEFAULT_HOOK_URL_SETTINGS, allowLocalRequests: true };
  const targets = new Map<number, hooksV1.DeliveryTarget>();
  const matches = new Map<number, number[]>(); // project → hooks wanting pushes
  let deps: DispatcherDeps;
  let senders: WebhookSender[] = [];
  let loops: DispatchLoop[] = [];

  const addHook = (id: number, path: string, extra: Partial<hooksV1.DeliveryTarget> = {}) => {
    targets.set(id, hooksV1.DeliveryTarget.fromPartial({ hookId: id, projectId: PROJECT_ID, url: `${receiver.url}${path}`, displayUrl: `${receiver.url}${path}`, enableSslVerification: true, ...extra }));
    matches.set(PROJECT_ID, [...(matches.get(PROJECT_ID) ?? []), id]);
  };
  const newDeps = (over: Partial<DispatcherDeps['settings']> = {}): DispatcherDeps => {
    const sender = new WebhookSender(() => settings, { timeoutMs: 2000 });
    senders.push(sender);
    return {
      pool, logger, sender, topic: `${schema}.gitlab.webhook_dispatcher.events`,
      hooks: {
        matchHooks: jest.fn(async (r: hooksV1.MatchHooksRequest) => ({ hookIds: (matches.get(r.projectId) ?? []).filter((id) => targets.has(id)) })),
        getDeliveryTargets: jest.fn(async (r: hooksV1.GetDeliveryTargetsRequest) => ({ targets: r.hookIds.flatMap((id) => (targets.has(id) ? [targets.get(id)!] : [])) })),
      },
      projects: {
        getProject: jest.fn(async () => ({
          project: projectsV1.Project.fromPartial({
            id: PROJECT_ID, name: 'Demo', path: 'demo', namespace: { id: 1, name: 'Group', path: 'group', fullPath: 'group', kind: 'group' }, defaultBranch: 'main',
            visibility: projectsV1.Visibility.VISIBILITY_PRIVATE, emptyRepo: false,
          }),
        })),
      },
      repoAdmin: { listCommits: jest.fn(async () => ({ ref: 'refs/heads/main', commits: [] })) },
      identity: { getUser: jest.fn(async () => ({ user: undefined })) },
      settings: {
        externalUrl: 'http://gitlab.test', gitlabVersion: '18.6.0', pushEventHooksLimit: 3, retry: { baseMs: 50, maxMs: 200, maxAttempts: 10 },
        disable: { baseMs: 60_000, maxMs: 86_400_000 }, leaseMs: 60_000, logRetentionDays: 7, ...over,
      },
    } as unknown as DispatcherDeps;
  };
  const startLoop = (d: DispatcherDeps, concurrency = 4) => {
    const loop = new DispatchLoop(d, { concurrency, pollMs: 50 });
    loop.start();
    loops.push(loop);
    return loop;
  };
  const push = async (d: DispatcherDeps, n = 1, refsInPush = 1) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const payload = {
        projectId: PROJECT_ID, ref: 'refs/heads/main', before: sha('a'), after: sha('b'), checkoutSha: sha('b'), refsInPush, totalCommitsCount: 1,
        pusher: { userId: 1, username: 'root', name: 'Administrator', email: '' },
        commits: [{ id: sha('b'), message: 'm\n', title: 'm', timestamp: new Date(), authorName: 'A', authorEmail: 'a@x', added: [], modified: [], removed: [] }],
      };
      const envelope = buildEnvelope({ aggregateType: 'repository', aggregateKey: `project:${PROJECT_ID}`, payloadType: EventTypes.Push, payload: EventTypes.Push.decode(EventTypes.Push.encode(payload as never).finish()) });
      await withTransaction(pool, (c) => enqueuePush(d, c, envelope, EventTypes.Push.decode(EventTypes.Push.encode(payload as never).finish()), 'push'));
      ids.push(envelope.eventId);
    }
    return ids;
  };
  const deliveryRows = async () => (await pool.query('SELECT id, hook_id, status, attempts, idempotency_key FROM deliveries ORDER BY id')).rows;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateWebhookDispatcher(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 10 });
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await Promise.all(loops.map((l) => l.stop(2000)));
    loops = [];
    await Promise.all(senders.map((s) => s.close()));
    senders = [];
    targets.clear();
    matches.clear();
    settings = { ...DEFAULT_HOOK_URL_SETTINGS, allowLocalRequests: true };
    await pool.query('TRUNCATE deliveries, webhook_events, web_hook_logs, hook_health, outbox');
  });
  afterAll(async () => {
    await pool?.end();
    await receiver?.close();
    await dropSchemas(schema).catch(() => undefined);
  });

  it('queues one delivery per (event, hook) once, and skips pushes of too many refs', async () => {
    const d = newDeps();
    addHook(1, '/q1');
    addHook(2, '/q2');
    const payload = repositoryEventsV1.Push.fromPartial({ projectId: PROJECT_ID, ref: 'refs/heads/main', before: sha('a'), after: sha('b'), refsInPush: 1 });
    const envelope = buildEnvelope({ aggregateType: 'repository', aggregateKey: `project:${PROJECT_ID}`, payloadType: EventTypes.Push, payload });
    expect(await withTransaction(pool, (c) => enqueuePush(d, c, envelope, payload, 'push'))).toBe(2);
    expect(await withTransaction(pool, (c) => enqueuePush(d, c, envelope, payload, 'push'))).toBe(0); // redelivered
    expect(await deliveryRows()).toHaveLength(2);
    const many = { ...payload, refsInPush: 4 };
    expect(await withTransaction(pool, (c) => enqueuePush(d, c, buildEnvelope({ aggregateType: 'r', aggregateKey: 'project:7', payloadType: EventTypes.Push, payload: many }), many, 'push'))).toBe(0);
    const stored = (await pool.query('SELECT trigger, payload FROM webhook_events')).rows;
    expect(stored).toHaveLength(1);
    expect(stored[0].trigger).toBe('push_hooks');
    expect(stored[0].payload).toMatchObject({ object_kind: 'push', project_id: PROJECT_ID, project: { path_with_namespace: 'group/demo', web_url: 'http://gitlab.test/group/demo' } });
  });

  it('two workers claiming with SKIP LOCKED deliver every event exactly once, with GitLab headers and a valid signature', async () => {
    addHook(10, '/shared', { token: 'sekret' });
    receiver.respond('/shared', () => 200);
    const d = newDeps();
    const events = await push(d, 40);
    startLoop(newDeps(), 4);
    startLoop(newDeps(), 4);
    await receiver.waitFor('/shared', 40, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    const got = receiver.at('/shared');
    expect(got).toHaveLength(40);
    expect(new Set(got.map((r) => r.headers['x-gitlab-event-uuid']))).toEqual(new Set(events));
    expect((await deliveryRows()).every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
    const one = got[0]!;
    expect(one.headers).toMatchObject({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'sekret', 'x-gitlab-instance': 'http://gitlab.test', 'user-agent': 'GitLab/18.6.0', 'content-type': 'application/json' });
    expect(one.headers['webhook-id']).toBe(one.headers['idempotency-key']);
    const std = { 'webhook-id': String(one.headers['webhook-id']), 'webhook-timestamp': String(one.headers['webhook-timestamp']), 'webhook-signature': String(one.headers['webhook-signature']) };
    expect(() => new Webhook('sekret', { format: 'raw' }).verify(one.body, std)).not.toThrow();
    expect(() => new Webhook('other', { format: 'raw' }).verify(one.body, std)).toThrow();
    const logs = (await pool.query(`SELECT request_headers FROM web_hook_logs`)).rows;
    expect(logs).toHaveLength(40);
    expect(logs[0].request_headers['X-Gitlab-Token']).toBe('[REDACTED]');
  });

  it('retries 500, 500, 500 then 200 with one Idempotency-Key: one success, logs for each, grace keeps the hook executable', async () => {
    addHook(20, '/flaky');
    receiver.respond('/flaky', ({ nth }) => (nth <= 3 ? { status: 500, body: `fail ${nth}` } : 200));
    const d = newDeps();
    await push(d);
    startLoop(d);
    await receiver.waitFor('/flaky', 4, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    const got = receiver.at('/flaky');
    expect(got.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(got.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(got.map((r) => r.headers['x-gitlab-webhook-uuid'])).size).toBe(4);
    expect(await deliveryRows()).toMatchObject([{ status: 'succeeded', attempts: 4 }]);
    const { events, total } = await listDeliveries(d, { hookId: 20, statuses: ['server_failure'], page: 1, perPage: 20 });
    expect(total).toBe(3);
    expect(events.map((e) => e.responseBody).sort()).toEqual(['fail 1', 'fail 2', 'fail 3']);
    expect(JSON.parse(events[0]!.requestDataJson)).toMatchObject({ object_kind: 'push' });
    const health = (await pool.query('SELECT recent_failures, disabled_until FROM hook_health WHERE hook_id = 20')).rows[0];
    expect(health).toEqual({ recent_failures: 0, disabled_until: null });
    // Resend a logged failure: same Idempotency-Key.
    const outcome = await resendDelivery(d, { hookId: 20, hookLogId: events[0]!.id });
    expect(outcome).toEqual({ ok: true, status: 200, message: '' });
    expect(receiver.at('/flaky')[4]!.headers['idempotency-key']).toBe(got[0]!.headers['idempotency-key']);
    targets.set(20, { ...targets.get(20)!, displayUrl: 'http://elsewhere/' });
    await expect(resendDelivery(d, { hookId: 20, hookLogId: events[0]!.id })).rejects.toMatchObject({ kind: 'unprocessable', message: 'The hook URL has changed, and this log entry cannot be retried' });
  });

  it('never hands one delivery to two concurrent claims', async () => {
    addHook(25, '/claims');
    await push(newDeps(), 30);
    const claims = await Promise.all(Array.from({ length: 10 }, () => claimDueDeliveries(pool, 4, 60_000)));
    const ids = claims.flat().map((c) => c.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });

  it('gives a crashed worker’s claims back after the lease', async () => {
    addHook(30, '/lease');
    const d = newDeps({ leaseMs: 300 });
    await push(d, 2);
    // A worker claims and dies without recording anything.
    const claimed = await claimDueDeliveries(pool, 10, 300);
    expect(claimed).toHaveLength(2);
    expect(await claimDueDeliveries(pool, 10, 300)).toHaveLength(0);
    startLoop(d);
    await receiver.waitFor('/lease', 2, 10_000);
    await eventually(async () => (await deliveryRows()).every((r) => r.status === 'succeeded'), 5000);
    expect(receiver.at('/lease')).toHaveLength(2);
  });

  it('refuses 127.0.0.1 when local requests are not allowed, at send time, with GitLab message', async () => {
    settings = { ...DEFAULT_HOOK_URL_SETTINGS, allowLocalRequests: false };
    addHook(40, '/ssrf');
    const d = newDeps();
    await push(d);
    startLoop(d);
    const log = await eventually(async () => (await pool.query('SELECT response_status, response_body FROM web_hook_logs WHERE hook_id = 40')).rows[0], 10_000);
    expect(log).toEqual({ response_status: 'internal error', response_body: 'Requests to loopback addresses are not allowed' });
    expect(receiver.at('/ssrf')).toHaveLength(0);
    // The allowlist lets exactly that host:port through.
    settings = { ...settings, allowlist: [`127.0.0.1:${receiver.port}`] };
    await receiver.waitFor('/ssrf', 1, 10_000);
  });

  it('follows a redirect only to a vetted address', async () => {
    settings = { ...DEFAULT_HOOK_URL_SETTINGS, allowLocalRequests: false, allowlist: [`127.0.0.1:${receiver.port}`] };
    const other = await startWebhookReceiver();
    try {
      receiver.respond('/hop', () => ({ status: 302, headers: { Location: `${other.url}/stolen` } }));
      receiver.respond('/hop-ok', () => ({ status: 307, headers: { Location: '/landed' } }));
      addHook(50, '/hop');
      addHook(51, '/hop-ok');
      const d = newDeps();
      await push(d);
      startLoop(d);
      await receiver.waitFor('/landed', 1, 10_000);
      expect(JSON.parse(receiver.at('/landed')[0]!.body)).toMatchObject({ object_kind: 'push' }); // 307 keeps the POST body
      const log = await eventually(async () => (await pool.query('SELECT response_status, response_body FROM web_hook_logs WHERE hook_id = 50')).rows[0], 10_000);
      expect(log).toEqual({ response_status: 'internal error', response_body: 'Requests to loopback addresses are not allowed' });
      expect(other.received).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('backs a failing hook off as GitLab (4th failure), holds its deliveries meanwhile, re-enables it when edited', async () => {
    addHook(70, '/down');
    receiver.respond('/down', () => 503);
    const d = newDeps({ retry: { baseMs: 10, maxMs: 20, maxAttempts: 100 } });
    await push(d);
    startLoop(d);
    const health = await eventually(async () => (await pool.query('SELECT recent_failures, disabled_until, version FROM hook_health WHERE hook_id = 70 AND disabled_until IS NOT NULL')).rows[0], 10_000);
    expect(health.recent_failures).toBe(4);
    expect(health.disabled_until.getTime() - Date.now()).toBeGreaterThan(50_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.at('/down')).toHaveLength(4); // nothing sent while disabled
    expect(await deliveryRows()).toMatchObject([{ status: 'pending', attempts: 4 }]);
    const outboxed = (await pool.query(`SELECT payload FROM outbox WHERE event_type = 'gitlab.events.v1.HookHealthChanged' ORDER BY id`)).rows;
    const changes = outboxed.map((r) => unpackPayload(decodeEnvelope(r.payload), EventTypes.HookHealthChanged));
    expect(changes.map((c) => [c.recentFailures, c.alertStatus, c.version])).toEqual([[1, 'executable', 1], [2, 'executable', 2], [3, 'executable', 3], [4, 'temporarily_disabled', 4]]);
    expect(changes[3]!.disabledUntil?.getTime()).toBe(health.disabled_until.getTime());
    // Edited (HookUpdated): healthy again, the waiting delivery goes out.
    receiver.respond('/down', () => 200);
    await withTransaction(pool, (c) => resetHealth(c, d.topic, 70, PROJECT_ID));
    await eventually(async () => receiver.at('/down').some((r) => r.status === 200), 10_000);
    // Deleted (HookDeleted): open deliveries are dropped.
    await push(d);
    targets.delete(70);
    await withTransaction(pool, (c) => dropOpenDeliveries(c, 70));
    expect((await deliveryRows()).filter((r) => r.status === 'pending')).toHaveLength(0);
  });

  it('sends URL credentials as Basic auth and masks them in the log', async () => {
    const withCreds = receiver.url.replace('http://', 'http://alice:s%3Acret@');
    targets.set(80, hooksV1.DeliveryTarget.fromPartial({ hookId: 80, projectId: PROJECT_ID, url: `${withCreds}/basic`, displayUrl: `${withCreds}/basic`, enableSslVerification: true }));
    matches.set(PROJECT_ID, [80]);
    const d = newDeps();
    await push(d);
    startLoop(d);
    const [got] = await receiver.waitFor('/basic', 1, 10_000);
    expect(got!.headers.authorization).toBe(`Basic ${Buffer.from('alice:s:cret').toString('base64')}`);
    const log = await eventually(async () => (await pool.query('SELECT url, request_headers FROM web_hook_logs WHERE hook_id = 80')).rows[0], 5000);
    expect(log.url).toBe(`${receiver.url.replace('http://', 'http://*****:*****@')}/basic`);
    expect(JSON.stringify(log)).not.toContain('alice');
  });

  it('tests a hook with a sample push and refuses triggers without data', async () => {
    addHook(60, '/test');
    receiver.respond('/test', () => ({ status: 500, body: 'nope' }));
    const d = newDeps();
    expect(await executeTest(d, { hookId: 60, projectId: PROJECT_ID, trigger: 'push_events', userId: 1 })).toEqual({ ok: false, status: 500, message: 'nope' });
    const [req] = receiver.at('/test');
    expect(req!.headers['x-gitlab-event']).toBe('Push Hook');
    expect(JSON.parse(req!.body)).toMatchObject({ object_kind: 'push', project_id: PROJECT_ID });
    await expect(executeTest(d, { hookId: 60, projectId: PROJECT_ID, trigger: 'issues_events', userId: 1 })).rejects.toMatchObject({ kind: 'unprocessable', message: 'Ensure the project has issues.' });
    const health = (await pool.query('SELECT recent_failures FROM hook_health WHERE hook_id = 60')).rows[0];
    expect(health).toEqual({ recent_failures: 1 });
  });
});
