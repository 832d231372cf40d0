/**
 * Credentials never leave the process: the request headers and parameters that carry them, in the forms
 * logs meet them (pino `redact` paths for objects, `redactUrl` for URLs written as strings).
 */

export const REDACTED = '[REDACTED]';

/** Headers that carry a credential (lower-case, as Node presents them). `Sudo` names a user and is kept. */
export const CREDENTIAL_HEADERS = ['authorization', 'private-token', 'job-token', 'cookie', 'set-cookie', 'x-glp-actor-sig'] as const;

/** Query/body parameters that carry a credential (GitLab's names). */
export const CREDENTIAL_PARAMS = ['private_token', 'access_token', 'job_token'] as const;

/** Other keys never worth logging when an object carrying them is logged. */
const SECRET_KEYS = [...CREDENTIAL_PARAMS, 'token', 'password', 'secret', 'rootToken', 'runners_token', 'runnersToken'];

/**
 * pino `redact` paths: credential headers wherever a request/response-like object is logged, and secret keys at
 * the top level and one level down (e.g. `{ req: { ... } }`, `{ params: { private_token } }`, `err.body`).
 */
export const REDACT_PATHS: string[] = [
  ...['req.headers', 'res.headers', 'headers', 'err.headers', 'request.headers', 'err.config.headers'].flatMap((base) =>
    CREDENTIAL_HEADERS.map((h) => `${base}["${h}"]`),
  ),
  ...SECRET_KEYS.flatMap((k) => [k, `*.${k}`]),
  'err.body',
  'req.query',
  'req.body',
];

const PARAM_RE = new RegExp(`([?&;](?:${CREDENTIAL_PARAMS.join('|')})=)[^&;#]*`, 'gi');
const PARAM_HINT = /token=/i;

/** A URL or path with the values of credential query parameters replaced: `/x?private_token=abc` → `/x?private_token=[REDACTED]`. */
export function redactUrl(url: string): string {
  // Cheap test first: almost every URL has no credential parameter.
  if (!PARAM_HINT.test(url)) return url;
  return url.replace(PARAM_RE, `$1${REDACTED}`);
}
