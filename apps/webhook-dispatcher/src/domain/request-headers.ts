import { createHmac } from 'node:crypto';
import { gitlabEventHeader } from './hook-triggers';

export const REDACTED = '[REDACTED]';

export interface HeaderInput {
  customHeaders: { key: string; value: string }[];
  hookName: string;
  idempotencyKey: string;
  /** X-Gitlab-Event-UUID: the domain event the delivery comes from. */
  eventUuid: string;
  /** X-Gitlab-Webhook-UUID: random per request. */
  webhookUuid: string;
  instanceUrl: string;
  gitlabVersion: string;
  /** The hook's secret token ("" = none). */
  token: string;
}

/**
 * GitLab's request headers (`WebHookService#build_headers`, custom headers first and overridden by the built-ins),
 * plus the Standard Webhooks headers when the hook has a token: `webhook-id` = the Idempotency-Key, `webhook-timestamp`,
 * `webhook-signature` = "v1,<base64 HMAC-SHA256(token, id.timestamp.body)>", the token's raw bytes as the key
 * (`new Webhook(token, { format: 'raw' })`). Without a token there is no key, so no signature.
 */
export function buildRequestHeaders(input: HeaderInput, body: string, now: Date): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { key, value } of input.customHeaders) headers[key] = value;
  const builtIns: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${input.gitlabVersion}`,
    'Idempotency-Key': input.idempotencyKey,
    'X-Gitlab-Event': gitlabEventHeader(input.hookName),
    'X-Gitlab-Webhook-UUID': input.webhookUuid,
    'X-Gitlab-Instance': input.instanceUrl.replace(/\/+$/, ''),
  };
  const token = input.token.replace(/[\r\n]/g, '');
  if (token) builtIns['X-Gitlab-Token'] = token;
  builtIns['X-Gitlab-Event-UUID'] = input.eventUuid;
  Object.assign(headers, standardWebhookHeaders(token, input.idempotencyKey, now, body), builtIns);
  // Built-ins win over a custom header of the same name in any case.
  for (const key of Object.keys(headers)) {
    const builtIn = Object.keys(builtIns).find((b) => b.toLowerCase() === key.toLowerCase());
    if (builtIn && builtIn !== key) delete headers[key];
  }
  return headers;
}

/** Standard Webhooks (https://www.standardwebhooks.com): id, timestamp and, with a token, the signature. */
export function standardWebhookHeaders(token: string, id: string, now: Date, body: string): Record<string, string> {
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)) };
  // Standard Webhooks' v1 signature, as `new Webhook(token, { format: 'raw' }).sign(id, now, body)` computes it (the key
  // is the token's chars as bytes, the message UTF-8), with node's native HMAC: the library's pure-JS SHA-256 cost a
  // measurable share of the dispatcher's CPU per delivery. The spec checks both agree.
  if (token) headers['webhook-signature'] = `v1,${createHmac('sha256', Buffer.from(token, 'latin1')).update(`${id}.${headers['webhook-timestamp']}.${body}`, 'utf8').digest('base64')}`;
  return headers;
}

/** The headers as the delivery log keeps them: custom header values and the token redacted (GitLab's WebHookLog). */
export function headersForLog(headers: Record<string, string>, customKeys: string[]): Record<string, string> {
  const custom = new Set(customKeys.map((k) => k.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const lower = k.toLowerCase();
    out[k] = lower === 'x-gitlab-token' || lower === 'authorization' || (custom.has(lower) && !BUILT_IN.has(lower)) ? REDACTED : v;
  }
  return out;
}

const BUILT_IN = new Set(['content-type', 'user-agent', 'idempotency-key', 'x-gitlab-event', 'x-gitlab-webhook-uuid', 'x-gitlab-instance', 'x-gitlab-event-uuid', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);
