import type { ErrorRequestHandler } from 'express';
import { RECORD, redactUrl, type ErrorKind, type FieldErrors } from '@glp/service-kit';
import { sendJson } from './respond';

/**
 * GitLab's error responses. Two body shapes exist (GitLab `lib/api/helpers.rb`, `lib/api/api.rb`):
 * helpers render `{"message": ...}`; Grape itself (param validation, `error!("...")`, unknown route) renders
 * `{"error": "..."}`. Every body below is byte-for-byte what GitLab sends.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    /** JSON body; `undefined` means no body at all (304). */
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body === 'object' && body !== null ? JSON.stringify(body) : `HTTP ${status}`);
    this.name = 'HttpError';
  }

  private static msg(status: number, message: unknown, headers?: Record<string, string>): HttpError {
    return new HttpError(status, { message }, headers);
  }
  /** GitLab `render_api_error_with_reason!`: "<base>" or "<base> - <reason>". */
  private static reason(status: number, base: string, reason?: string): HttpError {
    return HttpError.msg(status, reason ? `${base} - ${reason}` : base);
  }

  /** `unauthorized!` → 401 `{"message":"401 Unauthorized"}` (or `"401 Unauthorized - <reason>"`). */
  static unauthorized(reason?: string) {
    return HttpError.reason(401, '401 Unauthorized', reason);
  }
  /** `forbidden!` → 403 `{"message":"403 Forbidden"}` (or `"403 Forbidden - <reason>"`). */
  static forbidden(reason?: string) {
    return HttpError.reason(403, '403 Forbidden', reason);
  }
  /** `not_found!(what)` → 404 `{"message":"404 <What> Not Found"}`; no subject → `"404 Not Found"`. */
  static notFound(what?: string) {
    return HttpError.msg(404, what ? `404 ${what} Not Found` : '404 Not Found');
  }
  /** `ActiveRecord::RecordNotFound` rescued in `lib/api/api.rb` → 404 `{"message":"404 Not found"}` (lower-case "found"). */
  static recordNotFound() {
    return HttpError.msg(404, '404 Not found');
  }
  /** Unknown route (`route :any, '*path'` in `lib/api/api.rb`) → 404 `{"error":"404 Not Found"}`. */
  static routeNotFound() {
    return new HttpError(404, { error: '404 Not Found' });
  }
  /** `bad_request!` → 400 `{"message":"400 Bad request"}` (or `"400 Bad request - <reason>"`, lower-case "request"). */
  static badRequest(reason?: string) {
    return HttpError.reason(400, '400 Bad request', reason);
  }
  /** Grape parameter validation → 400 `{"error":"<messages>"}`, e.g. `"name is missing, path is missing"`. */
  static paramError(error: string) {
    return new HttpError(400, { error });
  }
  /** `render_validation_error!(model)` → 400 `{"message":{"name":["has already been taken"]}}`. */
  static validation(fields: Record<string, string[]>, status = 400) {
    return HttpError.msg(status, fields);
  }
  /** `conflict!(msg)` → 409 `{"message": msg}` (msg may be a string, array or hash); default `"409 Conflict"`. */
  static conflict(message: unknown = '409 Conflict') {
    return HttpError.msg(409, message);
  }
  /** `unprocessable_entity!(msg)` → 422 `{"message": msg}`; default `"422 Unprocessable Entity"`. */
  static unprocessable(message: unknown = '422 Unprocessable Entity') {
    return HttpError.msg(422, message);
  }
  /** `not_allowed!` → 405 `{"message":"405 Method Not Allowed"}` (or a custom message). */
  static methodNotAllowed(message = '405 Method Not Allowed') {
    return HttpError.msg(405, message);
  }
  /** `not_acceptable!` → 406 `{"message":"406 Not Acceptable"}`. */
  static notAcceptable() {
    return HttpError.msg(406, '406 Not Acceptable');
  }
  /** `file_too_large!` → 413 `{"message":"413 Request Entity Too Large"}`. */
  static payloadTooLarge() {
    return HttpError.msg(413, '413 Request Entity Too Large');
  }
  /** Grape formatter, body of an unknown content type → 415 `{"error":"The provided content-type 'x' is not supported."}`. */
  static unsupportedMediaType(mediaType: string) {
    return new HttpError(415, { error: `The provided content-type '${mediaType}' is not supported.` });
  }
  /** `too_many_requests!` → 429 `{"message":"429 Too Many Requests"}` with `Retry-After: 60`. */
  static tooManyRequests(message = '429 Too Many Requests', retryAfterSeconds = 60) {
    return HttpError.msg(429, message, { 'Retry-After': String(retryAfterSeconds) });
  }
  /** `check_rate_limit!` (`RateLimitedService::RateLimitedError`) → 429, nested body, no `Retry-After`. */
  static rateLimited() {
    return HttpError.msg(429, { error: 'This endpoint has been requested too many times. Try again later.' });
  }
  /** `service_unavailable!` → 503 `{"message":"503 Service Unavailable"}`. */
  static serviceUnavailable(message = '503 Service Unavailable') {
    return HttpError.msg(503, message);
  }
  /** `not_modified!` → 304, no body is transmitted. */
  static notModified() {
    return new HttpError(304, undefined);
  }
  /** `check_unmodified_since!` → 412 `{"message":"412 Precondition Failed"}`. */
  static preconditionFailed() {
    return HttpError.msg(412, '412 Precondition Failed');
  }
  /** `handle_api_exception` → 500 `{"message":"500 Internal Server Error"}`; details are logged, never sent. */
  static internal() {
    return HttpError.msg(500, '500 Internal Server Error');
  }
}

/** Maps a service's `DomainError` (libs/service-kit `ErrorKind`) to the GitLab response. */
export function fromDomainError(kind: ErrorKind, message: string, fields?: FieldErrors): HttpError {
  switch (kind) {
    case 'not_found':
      return message === RECORD ? HttpError.recordNotFound() : HttpError.notFound(message || undefined);
    case 'forbidden':
      return HttpError.forbidden(message || undefined);
    case 'unauthenticated':
      return HttpError.unauthorized(message || undefined);
    case 'invalid':
      return fields && Object.keys(fields).length > 0 ? HttpError.validation(fields) : HttpError.badRequest(message || undefined);
    case 'bad_request':
      return HttpError.badRequest(message || undefined);
    case 'rejected':
      return new HttpError(400, { message });
    case 'conflict':
      return HttpError.conflict(message || undefined);
    case 'unprocessable':
      return HttpError.unprocessable(message || undefined);
    case 'not_modified':
      return HttpError.notModified();
    case 'precondition_failed':
      return HttpError.preconditionFailed();
    case 'unavailable':
      return HttpError.serviceUnavailable(); // the service's own text is internal detail
    case 'internal':
      return HttpError.internal();
    case 'moved':
      // A moved project is answered 301/405 by `movedProjectHandler` on its route's `:id`; anywhere else it stays hidden.
      return HttpError.notFound('Project');
  }
}

const KINDS: ReadonlySet<string> = new Set<ErrorKind>([
  'not_found', 'forbidden', 'unauthenticated', 'invalid', 'bad_request', 'rejected', 'conflict', 'unprocessable',
  'not_modified', 'precondition_failed', 'unavailable', 'internal', 'moved',
]);

/**
 * Grape's JSON parser failure (`Grape::Exceptions::InvalidMessageBody`, composed from grape's `en.yml`, rendered by
 * GitLab's `rescue_from Grape::Exceptions::Base` as `{"error": message}`, 400).
 */
export const INVALID_JSON_MESSAGE =
  "\nProblem:\n  message body does not match declared format\nResolution:\n  when specifying application/json as content-type, you must pass valid application/json in the request's 'body' ";

interface ErrorLike {
  kind?: unknown;
  message?: unknown;
  fields?: unknown;
  type?: unknown;
  status?: unknown;
  expose?: unknown;
}

/** Anything thrown → the response GitLab would send; `known` is false for errors that deserve an error log. */
export function toHttpError(err: unknown): { error: HttpError; known: boolean } {
  if (err instanceof HttpError) return { error: err, known: err.status < 500 };
  const e = (typeof err === 'object' && err !== null ? err : {}) as ErrorLike;
  if (typeof e.kind === 'string' && KINDS.has(e.kind)) {
    const fields = typeof e.fields === 'object' && e.fields !== null ? (e.fields as FieldErrors) : undefined;
    const error = fromDomainError(e.kind as ErrorKind, typeof e.message === 'string' ? e.message : '', fields);
    return { error, known: error.status < 500 };
  }
  // body-parser / http-errors (`type`, `status`, `expose`; a body whose Content-Encoding does not decode has no `type`)
  if (typeof e.status === 'number' && (typeof e.type === 'string' || e.expose === true)) {
    if (e.type === 'entity.parse.failed') return { error: HttpError.paramError(INVALID_JSON_MESSAGE), known: true };
    if (e.status === 413) return { error: HttpError.payloadTooLarge(), known: true };
    if (e.status === 415) return { error: new HttpError(415, { error: String(e.message) }), known: true };
    if (e.status >= 400 && e.status < 500 && e.expose === true) {
      return { error: new HttpError(e.status, { error: String(e.message) }), known: true };
    }
  }
  return { error: HttpError.internal(), known: false };
}

export interface ErrorLogger {
  error(obj: object, msg?: string): void;
}

/** Express 5 error middleware: renders GitLab bodies, logs unexpected failures, never leaks stack traces. */
export function errorHandler(logger: ErrorLogger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const { error, known } = toHttpError(err);
    if (!known) logger.error({ err, method: req.method, url: redactUrl(req.originalUrl) }, 'request failed');
    sendJson(res, error.status, error.body, error.headers);
  };
}
