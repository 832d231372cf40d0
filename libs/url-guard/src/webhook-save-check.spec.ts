import { checkWebhookUrlAtSave, type WebhookUrlSettings } from './webhook-rules';

const DEFAULTS: WebhookUrlSettings = { allowLocalRequests: false, allowlist: [], denyAllExceptAllowed: false };
const url = (s: string) => new URL(s);
const nxdomain = async (): Promise<string[]> => {
  throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
};
const resolvesTo = (...addresses: string[]) => async () => addresses;

describe('webhook URL at save time (AddressableUrlValidator, no DNS rebinding check)', () => {
  it('saves a host that does not resolve', async () => {
    expect(await checkWebhookUrlAtSave(url('http://hook.url'), DEFAULTS, nxdomain)).toEqual({ ok: true, url: url('http://hook.url') });
    expect((await checkWebhookUrlAtSave(url('https://hooks.example.com/h'), DEFAULTS, resolvesTo())).ok).toBe(true);
  });

  it('judges every address of a host that resolves, and literal addresses without DNS', async () => {
    expect(await checkWebhookUrlAtSave(url('http://localhost:9/h'), DEFAULTS, resolvesTo('127.0.0.1'))).toEqual({ ok: false, reason: 'Requests to loopback addresses are not allowed' });
    expect(await checkWebhookUrlAtSave(url('http://h.test/'), DEFAULTS, resolvesTo('93.184.216.34', '10.1.2.3'))).toEqual({ ok: false, reason: 'Requests to the local network are not allowed' });
    expect(await checkWebhookUrlAtSave(url('http://10.0.0.1/'), DEFAULTS, nxdomain)).toEqual({ ok: false, reason: 'Requests to the local network are not allowed' });
    expect((await checkWebhookUrlAtSave(url('http://h.test/'), DEFAULTS, resolvesTo('93.184.216.34'))).ok).toBe(true);
  });

  it('resolves nothing when local targets are allowed and nothing is denied', async () => {
    const never = async (): Promise<string[]> => { throw new Error('resolved'); };
    expect((await checkWebhookUrlAtSave(url('http://localhost/'), { ...DEFAULTS, allowLocalRequests: true }, never)).ok).toBe(true);
  });

  it('with deny_all_requests_except_allowed, an unresolvable host passes only when allowlisted by name', async () => {
    const denyAll = { allowLocalRequests: false, allowlist: ['hook.url', '10.0.0.0/8'], denyAllExceptAllowed: true };
    expect((await checkWebhookUrlAtSave(url('http://hook.url/'), denyAll, nxdomain)).ok).toBe(true);
    expect(await checkWebhookUrlAtSave(url('http://other.url/'), denyAll, nxdomain)).toEqual({ ok: false, reason: 'Host cannot be resolved or invalid' });
  });
});
