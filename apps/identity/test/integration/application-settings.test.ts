import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload } from '@glp/events';
import type { identityEventsV1 } from '@glp/proto';
import { systemActor, createLogger, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { ensureApplicationSettings } from '../../src/app/application-settings';
import { identityService } from '../../src/grpc/identity-service';
import { noAuthCache } from '../../src/events/auth-cache-invalidator';
import { noGroupAccessCache } from '../../src/events/group-access-invalidator';
import { migrateIdentity } from '../../src/migrations';

const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const admin: Actor = { kind: 'user', id: 1, username: 'root', admin: true, scopes: ['api'] };
const user: Actor = { kind: 'user', id: 2, username: 'alice', admin: false, scopes: ['api'] };
const hooks = systemActor('hooks');

describe('identity application settings against PostgreSQL', () => {
  const schema = uniqueName('it_settings');
  let pool: Pool;
  let service: ReturnType<typeof identityService>;
  const defaults = { allowLocalWebhooks: true, outboundAllowlist: ['seed.test', '10.0.0.0/8'] };

  async function settingsEvents(): Promise<identityEventsV1.ApplicationSettingsChanged[]> {
    const { rows } = await pool.query<{ payload: Buffer }>("SELECT payload FROM outbox WHERE message_key = 'application_settings' ORDER BY id");
    return rows.map((r) => unpackPayload(decodeEnvelope(r.payload), EventTypes.ApplicationSettingsChanged));
  }

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateIdentity(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = identityService({
      pool, topic: 'test.identity', logger: createLogger('settings-test', 'silent'), countLimit: 10000, authCache: noAuthCache, groupAccess: noGroupAccessCache, settingsDefaults: defaults,
    });
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('creates the row once from the start-up defaults, with one event; a later start with other defaults changes nothing', async () => {
    await ensureApplicationSettings({ pool, topic: 'test.identity', defaults });
    await ensureApplicationSettings({ pool, topic: 'test.identity', defaults: { allowLocalWebhooks: false, outboundAllowlist: [] } });
    const { settings } = await service.getApplicationSettings({}, ctx(hooks));
    expect(settings).toMatchObject({
      allowLocalRequestsFromWebHooksAndServices: true, allowLocalRequestsFromSystemHooks: true,
      outboundLocalRequestsAllowlist: ['seed.test', '10.0.0.0/8'], denyAllRequestsExceptAllowed: false,
    });
    expect(settings!.updatedAt).toBeInstanceOf(Date);
    const events = await settingsEvents();
    expect(events).toHaveLength(1);
    expect(events[0]!.outboundLocalRequestsAllowlist).toEqual(['seed.test', '10.0.0.0/8']);
  });

  it('lets administrators and services read; others are refused', async () => {
    expect((await service.getApplicationSettings({}, ctx(admin))).settings).toBeDefined();
    expect((await rejection(service.getApplicationSettings({}, ctx(user)))).kind).toBe('forbidden');
  });

  it('updates only what was sent, with ApplicationSettingsChanged in the outbox', async () => {
    const { settings } = await service.updateApplicationSettings({
      input: { denyAllRequestsExceptAllowed: true, outboundLocalRequestsAllowlist: { entries: [' a.test:8080 ', '[::1]:80', ''] } },
    }, ctx(admin));
    expect(settings).toMatchObject({
      allowLocalRequestsFromWebHooksAndServices: true, denyAllRequestsExceptAllowed: true, outboundLocalRequestsAllowlist: ['a.test:8080', '[::1]:80'],
    });
    const events = await settingsEvents();
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ allowLocalRequestsFromWebHooksAndServices: true, denyAllRequestsExceptAllowed: true, outboundLocalRequestsAllowlist: ['a.test:8080', '[::1]:80'] });
    // An empty list sent clears it; a list not sent stays.
    await service.updateApplicationSettings({ input: { outboundLocalRequestsAllowlist: { entries: [] } } }, ctx(admin));
    const cleared = await service.updateApplicationSettings({ input: { allowLocalRequestsFromWebHooksAndServices: false } }, ctx(admin));
    expect(cleared.settings).toMatchObject({ allowLocalRequestsFromWebHooksAndServices: false, outboundLocalRequestsAllowlist: [] });
  });

  it('refuses non-administrators (services too) and invalid lists, writing nothing', async () => {
    const before = (await settingsEvents()).length;
    expect((await rejection(service.updateApplicationSettings({ input: { denyAllRequestsExceptAllowed: false } }, ctx(user)))).kind).toBe('forbidden');
    expect((await rejection(service.updateApplicationSettings({ input: { denyAllRequestsExceptAllowed: false } }, ctx(hooks)))).kind).toBe('forbidden');
    const bad = await rejection(service.updateApplicationSettings({
      input: { allowLocalRequestsFromWebHooksAndServices: true, outboundLocalRequestsAllowlist: { entries: ['ok.test', 'not a host'] } },
    }, ctx(admin)));
    expect(bad.kind).toBe('invalid');
    expect(Object.keys(bad.fields ?? {})).toEqual(['outbound_local_requests_whitelist']);
    const tooMany = await rejection(service.updateApplicationSettings({
      input: { outboundLocalRequestsAllowlist: { entries: Array.from({ length: 1001 }, (_, i) => `h${i}.test`) } },
    }, ctx(admin)));
    expect(tooMany.fields).toEqual({ outbound_local_requests_whitelist: ['is too long (maximum is 1000 entries)'] });
    expect((await settingsEvents()).length).toBe(before);
    expect((await service.getApplicationSettings({}, ctx(admin))).settings!.allowLocalRequestsFromWebHooksAndServices).toBe(false);
  });
});
