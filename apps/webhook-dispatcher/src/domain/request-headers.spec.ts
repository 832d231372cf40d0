import { Webhook } from 'standardwebhooks';
import { buildRequestHeaders, headersForLog, standardWebhookHeaders } from './request-headers';

const base = {
  customHeaders: [{ key: 'X-Custom', value: 'secret-value' }, { key: 'user-agent', value: 'spoofed' }],
  hookName: 'tag_push_hooks', idempotencyKey: '11111111-1111-4111-8111-111111111111', eventUuid: '22222222-2222-4222-8222-222222222222',
  webhookUuid: '33333333-3333-4333-8333-333333333333', instanceUrl: 'https://gl.example.com/', gitlabVersion: '18.6.0', token: 'tok\nen',
};
const now = new Date('2025-01-01T00:00:00Z');

describe('request headers', () => {
  it('sends custom headers first, GitLab built-ins over them, and the Standard Webhooks headers', () => {
    const body = '{"a":1}';
    const h = buildRequestHeaders(base, body, now);
    expect(h).toMatchObject({
      'X-Custom': 'secret-value', 'Content-Type': 'application/json', 'User-Agent': 'GitLab/18.6.0', 'Idempotency-Key': base.idempotencyKey, 'X-Gitlab-Event': 'Tag Push Hook',
      'X-Gitlab-Webhook-UUID': base.webhookUuid, 'X-Gitlab-Instance': 'https://gl.example.com', 'X-Gitlab-Token': 'token', 'X-Gitlab-Event-UUID': base.eventUuid,
      'webhook-id': base.idempotencyKey, 'webhook-timestamp': '1735689600',
    });
    expect(h['user-agent']).toBeUndefined();
    expect(Object.keys(h)[0]).toBe('X-Custom');
    // A receiver verifies the signature with the hook's token; a changed body or another token fails.
    const std = { 'webhook-id': h['webhook-id']!, 'webhook-timestamp': h['webhook-timestamp']!, 'webhook-signature': h['webhook-signature']! };
    const verify = (token: string, payload: string) => new Webhook(token, { format: 'raw' }).verify(payload, std);
    jest.useFakeTimers({ now });
    try {
      expect(verify('token', body)).toEqual({ a: 1 });
      expect(() => verify('token', '{"a":2}')).toThrow();
      expect(() => verify('other', body)).toThrow();
    } finally {
      jest.useRealTimers();
    }
  });

  it('signs exactly as the standardwebhooks library does (unicode bodies, odd tokens)', () => {
    const now = new Date('2026-11-24T10:00:00Z');
    for (const [token, body] of [['t', '{}'], ['s3cr3t with spaces & symbols!', '{"msg":"héllo ✓ 漢字"}'], ['x'.repeat(300), 'a'.repeat(5000)]] as const) {
      const ours = standardWebhookHeaders(token, 'msg_1', now, body)['webhook-signature'];
      expect(ours).toBe(new Webhook(token, { format: 'raw' }).sign('msg_1', now, body));
    }
  });

  it('sends no token and no signature for a hook without a token', () => {
    const h = buildRequestHeaders({ ...base, token: '' }, '{}', now);
    expect(h['X-Gitlab-Token']).toBeUndefined();
    expect(h['webhook-signature']).toBeUndefined();
    expect(h['webhook-id']).toBe(base.idempotencyKey);
  });

  it('redacts the token and custom header values in the log', () => {
    const h = buildRequestHeaders(base, '{}', now);
    const logged = headersForLog(h, ['X-Custom', 'user-agent']);
    expect(logged['X-Gitlab-Token']).toBe('[REDACTED]');
    expect(logged['X-Custom']).toBe('[REDACTED]');
    expect(logged['User-Agent']).toBe('GitLab/18.6.0');
    expect(JSON.stringify(logged)).not.toContain('secret-value');
  });
});
