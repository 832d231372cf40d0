import { startWebhookReceiver, type WebhookReceiver } from '@glp/testing';
import { REFUSED_HOST_FORMS, type Resolver, type WebhookUrlSettings } from '@glp/url-guard';
import { WebhookSender } from '../../src/app/webhook-sender';

const PUBLIC = '93.184.216.34';

/**
 * The webhook side of the outbound guard, with real HTTP: the hook's receiver is allowed (allowlisted host:port) and
 * hostile; `internal` is a server on 127.0.0.1 that no rule allows. Every redirect hop and every DNS answer goes through
 * the guard's table of refused host forms, so what imports and mirrors refuse, webhooks (their tests and resends use
 * the same sender) refuse too.
 */
describe('webhook requests behind the outbound guard', () => {
  let receiver: WebhookReceiver;
  let internal: WebhookReceiver;
  let settings: WebhookUrlSettings;
  const senders: WebhookSender[] = [];
  const sender = (resolve?: Resolver) => {
    const s = new WebhookSender(() => settings, { timeoutMs: 3000, resolve });
    senders.push(s);
    return s;
  };
  const send = (s: WebhookSender, url: string) => s.send({ url, headers: { 'Content-Type': 'application/json' }, body: '{"object_kind":"push"}', verifyTls: true });

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    internal = await startWebhookReceiver();
  });
  beforeEach(() => {
    settings = { allowLocalRequests: false, allowlist: [`127.0.0.1:${receiver.port}`], denyAllExceptAllowed: false };
  });
  afterAll(async () => {
    await Promise.all(senders.map((s) => s.close()));
    await receiver?.close();
    await internal?.close();
  });

  it('delivers to the allowed receiver, and follows its redirect to an allowed target (the attacks below are real)', async () => {
    receiver.respond('/hop-ok', () => ({ status: 302, headers: { Location: '/landed' } }));
    expect(await send(sender(), `${receiver.url}/hop-ok`)).toMatchObject({ status: 200 });
    expect(receiver.at('/landed')).toHaveLength(1);
    settings = { ...settings, allowLocalRequests: true };
    expect(await send(sender(), `http://127.0.0.1:${internal.port}/direct`)).toMatchObject({ status: 200 });
    expect(internal.at('/direct')).toHaveLength(1);
  });

  it.each(REFUSED_HOST_FORMS)('does not follow a redirect to $name ($host)', async ({ host, reason }) => {
    const path = `/to/${encodeURIComponent(host)}`;
    receiver.respond(path, () => ({ status: 302, headers: { Location: `http://${host}:${internal.port}/stolen` } }));
    const before = internal.received.length;
    expect(await send(sender(async () => [PUBLIC]), `${receiver.url}${path}`)).toEqual({ status: null, headers: {}, body: '', error: reason });
    expect(receiver.at(path)).toHaveLength(1);
    expect(internal.received.length).toBe(before);
  });

  // The attacker's DNS answers the guard with an allowed address (127.0.0.2, allowlisted), then 127.0.0.1 (the
  // internal server) to any later lookup.
  const rebinding = () => {
    let asked = 0;
    return async () => (asked++ === 0 ? ['127.0.0.2'] : ['127.0.0.1']);
  };

  it('connects to the address it checked: a rebinding DNS cannot reach the internal server', async () => {
    settings = { ...settings, allowlist: ['127.0.0.2'] };
    const before = internal.received.length;
    const result = await send(sender(rebinding()), `http://rebind.example:${internal.port}/rebound`);
    expect({ status: result.status, error: result.error, delivered: internal.received.length - before }).toEqual({ status: null, error: 'Connection refused', delivered: 0 });
  });

  it('connects a redirect hop to the address it checked: a rebinding DNS cannot reach the internal server', async () => {
    settings = { ...settings, allowlist: [...settings.allowlist, '127.0.0.2'] };
    receiver.respond('/to-rebind', () => ({ status: 307, headers: { Location: `http://rebind.example:${internal.port}/rebound-hop` } }));
    const before = internal.received.length;
    const result = await send(sender(rebinding()), `${receiver.url}/to-rebind`);
    expect({ status: result.status, error: result.error, delivered: internal.received.length - before }).toEqual({ status: null, error: 'Connection refused', delivered: 0 });
  });

  it('refuses a name that resolves to a public and a local address', async () => {
    const result = await send(sender(async () => [PUBLIC, '127.0.0.1']), `http://mixed.example:${internal.port}/mixed`);
    expect(result).toMatchObject({ status: null, error: 'Requests to loopback addresses are not allowed' });
    expect(internal.at('/mixed')).toHaveLength(0);
  });
});
