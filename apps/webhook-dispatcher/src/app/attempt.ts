import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { hooksV1 } from '@glp/proto';
import { maskedUrl } from '@glp/url-guard';
import { CustomTemplateError, renderCustomTemplate } from '../domain/custom-template';
import { buildRequestHeaders, headersForLog } from '../domain/request-headers';
import { safeResponseHeaders } from '../domain/response-limits';
import { insertLog, type NewLog } from '../store/logs-store';
import type { DispatcherDeps } from './deps';
import { recordHealth } from './hook-health';

/** What one request sends: an event's payload to a hook, under a hook name, with a stable Idempotency-Key. */
export interface DeliveryJob {
  eventId: string;
  /** GitLab's hook name: push_hooks, tag_push_hooks, ... */
  hookName: string;
  payload: unknown;
  idempotencyKey: string;
  deliveryId: number | null;
}

/** One request made (or refused before it could be made), ready to be recorded. */
export interface Attempt {
  startedAt: Date;
  answeredAt: Date;
  /** 2xx. */
  ok: boolean;
  /** HTTP status; 0: no answer. */
  status: number;
  /** The receiver's body, or the transport/refusal error. */
  message: string;
  log: NewLog;
}

/**
 * Sends one request as GitLab's WebHookService#execute: the payload (or the rendered custom template) as JSON, GitLab's
 * headers plus the Standard Webhooks signature, and answers the log row GitLab would write.
 */
export async function performAttempt(deps: Pick<DispatcherDeps, 'sender' | 'settings'>, target: hooksV1.DeliveryTarget, job: DeliveryJob): Promise<Attempt> {
  const startedAt = new Date();
  const started = performance.now();
  let data: unknown = job.payload;
  let templateError: string | undefined;
  if (target.customWebhookTemplate) {
    try {
      data = renderCustomTemplate(target.customWebhookTemplate, job.payload);
    } catch (err) {
      if (!(err instanceof CustomTemplateError)) throw err;
      templateError = err.message;
      data = {};
    }
  }
  const body = JSON.stringify(data);
  const headers = buildRequestHeaders(
    {
      customHeaders: target.customHeaders, hookName: job.hookName, idempotencyKey: job.idempotencyKey, eventUuid: job.eventId, webhookUuid: randomUUID(),
      instanceUrl: deps.settings.externalUrl, gitlabVersion: deps.settings.gitlabVersion, token: target.token,
    },
    body,
    startedAt,
  );
  const result = templateError
    ? { status: null, headers: {}, body: '', error: templateError }
    : await deps.sender.send({ url: target.url, headers, body, verifyTls: target.enableSslVerification });
  const answeredAt = new Date();
  const status = result.status ?? 0;
  const ok = status >= 200 && status < 300;
  const log: NewLog = {
    hookId: target.hookId,
    deliveryId: job.deliveryId,
    eventId: job.eventId,
    url: logUrl(target.displayUrl),
    trigger: job.hookName,
    requestHeaders: headersForLog(headers, target.customHeaders.map((h) => h.key)),
    requestData: target.customWebhookTemplate ? data : undefined,
    responseHeaders: safeResponseHeaders(result.headers),
    responseBody: result.error ?? result.body,
    responseStatus: result.status === null ? 'internal error' : String(result.status),
    internalErrorMessage: result.error ?? null,
    executionDuration: (performance.now() - started) / 1000,
    idempotencyKey: job.idempotencyKey,
  };
  return { startedAt, answeredAt, ok, status, message: result.error ?? result.body, log };
}

/** The URL as the log keeps it: credentials masked (GitLab's `WebHookLog#obfuscate_basic_auth`). */
export function logUrl(displayUrl: string): string {
  return /\/\/[^/]*@/.test(displayUrl) ? maskedUrl(displayUrl) || displayUrl : displayUrl;
}

/** Writes the log row and the hook's health after an attempt (in the caller's transaction); answers the log id. */
export async function recordAttempt(client: PoolClient, deps: Pick<DispatcherDeps, 'settings' | 'topic'>, projectId: number, attempt: Attempt): Promise<number> {
  const id = await insertLog(client, attempt.log);
  await recordHealth(client, deps, attempt.log.hookId, projectId, attempt.ok ? 'success' : 'failure', attempt.startedAt);
  return id;
}

/** The answer of a synchronous delivery (test, resend): ok, status, and the body or error. */
export function outcomeOf(attempt: Attempt): hooksV1.DeliveryOutcome {
  return { ok: attempt.ok, status: attempt.status, message: attempt.ok ? '' : attempt.message };
}
