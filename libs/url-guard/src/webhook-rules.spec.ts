import { checkWebhookAddresses, checkWebhookUrlSyntax, type WebhookUrlSettings } from './webhook-rules';

const DEFAULT_HOOK_URL_SETTINGS: WebhookUrlSettings = { allowLocalRequests: false, allowlist: [], denyAllExceptAllowed: false };

const url = (s: string) => new URL(s);

describe('webhook URL policy', () => {
  it('refuses local addresses by default with GitLab messages', () => {
    expect(checkWebhookAddresses(url('http://127.0.0.1:9/x'), ['127.0.0.1'], DEFAULT_HOOK_URL_SETTINGS)).toEqual({ ok: false, reason: 'Requests to loopback addresses are not allowed' });
    expect(checkWebhookAddresses(url('http://h/x'), ['93.184.216.34', '10.0.0.1'], DEFAULT_HOOK_URL_SETTINGS)).toEqual({ ok: false, reason: 'Requests to the local network are not allowed' });
    expect(checkWebhookAddresses(url('http://h/x'), ['169.254.169.254'], DEFAULT_HOOK_URL_SETTINGS).ok).toBe(false);
    expect(checkWebhookAddresses(url('http://h/x'), [], DEFAULT_HOOK_URL_SETTINGS)).toEqual({ ok: false, reason: 'Host cannot be resolved or invalid' });
    expect(checkWebhookAddresses(url('http://h/x'), ['93.184.216.34'], DEFAULT_HOOK_URL_SETTINGS).ok).toBe(true);
  });

  it('allows local addresses by setting or allowlist entry (with its port)', () => {
    expect(checkWebhookAddresses(url('http://127.0.0.1:9/x'), ['127.0.0.1'], { ...DEFAULT_HOOK_URL_SETTINGS, allowLocalRequests: true }).ok).toBe(true);
    const listed = { ...DEFAULT_HOOK_URL_SETTINGS, allowlist: ['127.0.0.1:9'] };
    expect(checkWebhookAddresses(url('http://127.0.0.1:9/x'), ['127.0.0.1'], listed).ok).toBe(true);
    expect(checkWebhookAddresses(url('http://127.0.0.1:10/x'), ['127.0.0.1'], listed).ok).toBe(false);
  });

  it('denies everything off the allowlist in deny-all mode', () => {
    const denyAll = { allowLocalRequests: true, allowlist: ['example.com'], denyAllExceptAllowed: true };
    expect(checkWebhookAddresses(url('http://example.com/'), ['93.184.216.34'], denyAll).ok).toBe(true);
    expect(checkWebhookAddresses(url('http://other.com/'), ['93.184.216.35'], denyAll).ok).toBe(false);
  });

  it('accepts only http and https', () => {
    expect(checkWebhookUrlSyntax('ftp://example.com/')).toEqual({ ok: false, reason: 'Only allowed schemes are http, https' });
    expect(checkWebhookUrlSyntax('https://example.com/').ok).toBe(true);
  });
});
