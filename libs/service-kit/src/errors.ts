import { Metadata, status, type ServiceError } from '@grpc/grpc-js';

/** The kinds of failure a domain rule can report. Transport-neutral: no HTTP here. */
export type ErrorKind =
  | 'not_found'
  | 'forbidden'
  | 'unauthenticated'
  | 'invalid' // field-level validation errors
  | 'bad_request'
  // A refusal GitLab words as a plain message (`render_api_error!(message, 400)`): 400 {"message": message}.
  | 'rejected'
  | 'conflict'
  | 'unprocessable'
  | 'not_modified'
  | 'precondition_failed'
  | 'unavailable'
  | 'internal'
  // The project was reached by an old (redirected) full path: the API answers 301 to the route with its id for GET,
  // 405 otherwise (GitLab `find_project!`). Carries the project id (`movedToId`).
  | 'moved';

export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  /** The gRPC status a client received it with (set, not enumerable, by fromGrpcError): what no kind names, e.g. UNIMPLEMENTED. */
  declare readonly grpcCode?: status;

  constructor(
    public readonly kind: ErrorKind,
    message: string,
    public readonly fields?: FieldErrors,
    /** For `moved`: the id of the project the old path leads to. */
    public readonly movedToId?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** `what` names the missing thing, e.g. "Project" (rendered by the gateway as "404 Project Not Found"). */
export const notFound = (what = '') => new DomainError('not_found', what);
/** What `recordNotFound()` carries: a row looked up by key is missing (GitLab's `find_by!` → "404 Not found"). */
export const RECORD = 'record';
/** A row looked up by its key is missing (a membership, an access request): rendered as GitLab's RecordNotFound. */
export const recordNotFound = () => new DomainError('not_found', RECORD);
export const forbidden = (reason = '') => new DomainError('forbidden', reason);
export const unauthenticated = (reason = '') => new DomainError('unauthenticated', reason);
export const invalid = (fields: FieldErrors) =>
  new DomainError(
    'invalid',
    Object.entries(fields)
      .map(([k, v]) => `${k} ${v.join(', ')}`)
      .join('; '),
    fields,
  );
export const badRequest = (message: string) => new DomainError('bad_request', message);
export const conflict = (message: string) => new DomainError('conflict', message);
/** 400 with GitLab's plain message (no "400 Bad request - " prefix), e.g. "Project has not been marked for deletion". */
export const rejected = (message: string) => new DomainError('rejected', message);
export const unprocessable = (message: string) => new DomainError('unprocessable', message);
export const notModified = () => new DomainError('not_modified', 'not modified');
/**
 * The project (readable by the caller) was found through a redirect route of an old full path. Its message is
 * "Project", so that a consumer that does not know the kind still renders GitLab's 404 Project Not Found.
 */
export const projectMoved = (projectId: number) => new DomainError('moved', 'Project', undefined, projectId);

const KIND_TO_GRPC: Record<ErrorKind, status> = {
  not_found: status.NOT_FOUND,
  forbidden: status.PERMISSION_DENIED,
  unauthenticated: status.UNAUTHENTICATED,
  invalid: status.INVALID_ARGUMENT,
  bad_request: status.INVALID_ARGUMENT,
  rejected: status.INVALID_ARGUMENT,
  conflict: status.ALREADY_EXISTS,
  unprocessable: status.FAILED_PRECONDITION,
  not_modified: status.ABORTED,
  precondition_failed: status.FAILED_PRECONDITION,
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
  moved: status.NOT_FOUND, // not under that name (any more)
};

const GRPC_TO_KIND: Partial<Record<status, ErrorKind>> = {
  [status.NOT_FOUND]: 'not_found',
  [status.PERMISSION_DENIED]: 'forbidden',
  [status.UNAUTHENTICATED]: 'unauthenticated',
  [status.INVALID_ARGUMENT]: 'bad_request',
  [status.ALREADY_EXISTS]: 'conflict',
  [status.FAILED_PRECONDITION]: 'unprocessable',
  [status.ABORTED]: 'not_modified',
  [status.UNAVAILABLE]: 'unavailable',
  [status.DEADLINE_EXCEEDED]: 'unavailable',
};

const KIND_KEY = 'x-glp-error-kind';
const FIELDS_KEY = 'x-glp-error-fields';
const MOVED_TO_KEY = 'x-glp-error-moved-to-id';

export interface GrpcErrorPayload {
  code: status;
  details: string;
  metadata: Metadata;
}

/** PostgreSQL SQLSTATEs that say the server is gone or not accepting yet: class 08, admin/crash shutdown, starting up. */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** Socket errors and node-postgres' own messages for a connection that is gone or cannot be made. */
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

/**
 * A dependency (the database) that is down or restarting rather than a bug: answered UNAVAILABLE, which the gateway
 * turns into 503 (fault-postgres-restart.test.ts), so clients retry instead of reporting a server error.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof e?.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true;
  if (typeof e?.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  // ECONNREFUSED to a host with several addresses comes as an AggregateError.
  return Array.isArray(e?.errors) && e.errors.length > 0 && e.errors.every(isDependencyUnavailable);
}

/** Maps any thrown value to a gRPC error, with toErrorPayload's rules (unknown errors: INTERNAL, a generic message). */
export function toGrpcError(err: unknown): GrpcErrorPayload {
  const p = toErrorPayload(err);
  const metadata = new Metadata();
  metadata.set(KIND_KEY, p.kind);
  if (p.fieldsJson) metadata.set(FIELDS_KEY, p.fieldsJson);
  if (err instanceof DomainError && err.movedToId !== undefined) metadata.set(MOVED_TO_KEY, String(err.movedToId));
  return { code: KIND_TO_GRPC[p.kind as ErrorKind], details: p.message, metadata };
}

/** Field errors as a DomainError carries them, from their JSON (on the wire); unreadable JSON: none. */
function parseFields(json: string | undefined): FieldErrors | undefined {
  if (!json) return undefined;
  try {
    return JSON.parse(json) as FieldErrors;
  } catch {
    return undefined;
  }
}

/** A failure no DomainError describes and no dependency outage explains: a bug, logged where it is answered. */
export function isUnexpectedError(err: unknown): boolean {
  return !(err instanceof DomainError) && !isDependencyUnavailable(err);
}

/** Maps a gRPC client error back to the DomainError the service raised. */
export function fromGrpcError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const se = err as Partial<ServiceError>;
  if (typeof se?.code !== 'number') return new DomainError('internal', String((err as Error)?.message ?? err));
  const kindValue = se.metadata?.get(KIND_KEY)[0];
  const kind = (typeof kindValue === 'string' ? kindValue : GRPC_TO_KIND[se.code] ?? 'internal') as ErrorKind;
  const fieldsValue = se.metadata?.get(FIELDS_KEY)[0];
  const fields = parseFields(typeof fieldsValue === 'string' ? fieldsValue : undefined);
  const movedTo = se.metadata?.get(MOVED_TO_KEY)[0];
  const movedToId = typeof movedTo === 'string' && /^\d+$/.test(movedTo) ? Number(movedTo) : undefined;
  const domainError = new DomainError(kind, se.details ?? '', fields, movedToId);
  // The transport's code, for the callers that branch on one no kind names (isUnimplemented).
  Object.defineProperty(domainError, 'grpcCode', { value: se.code, enumerable: false });
  return domainError;
}

/** A domain error as plain fields, for a message that carries the failure of one item of a batch. */
export interface ErrorPayload {
  kind: string;
  message: string;
  /** Field errors of `invalid` as JSON; empty otherwise. */
  fieldsJson: string;
  /** For `moved`: the project's id; 0 otherwise. */
  movedToId: number;
}

/** Any thrown value as an ErrorPayload, with toGrpcError's rules (unknown errors: `internal`, a generic message). */
export function toErrorPayload(err: unknown): ErrorPayload {
  if (err instanceof DomainError) {
    return { kind: err.kind, message: err.message, fieldsJson: err.fields ? JSON.stringify(err.fields) : '', movedToId: err.movedToId ?? 0 };
  }
  if (isDependencyUnavailable(err)) return { kind: 'unavailable', message: 'a dependency is unavailable', fieldsJson: '', movedToId: 0 };
  return { kind: 'internal', message: 'internal error', fieldsJson: '', movedToId: 0 };
}

const ERROR_KINDS = new Set<string>(Object.keys(KIND_TO_GRPC));

/** The DomainError an ErrorPayload describes (an unknown kind: `internal`). */
export function fromErrorPayload(p: Partial<ErrorPayload> | undefined): DomainError {
  const kind = (p?.kind && ERROR_KINDS.has(p.kind) ? p.kind : 'internal') as ErrorKind;
  return new DomainError(kind, p?.message ?? '', parseFields(p?.fieldsJson), kind === 'moved' && p?.movedToId ? Number(p.movedToId) : undefined);
}

/** Whether a call failed because the server does not have the method (an older peer during a rolling upgrade). */
export function isUnimplemented(err: unknown): boolean {
  return err instanceof DomainError && err.grpcCode === status.UNIMPLEMENTED;
}
