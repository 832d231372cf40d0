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

/**
 * Query parameter names whose values never reach a log, as GitLab's `filter_parameters` (config/application.rb): any
 * name ending in `token`, containing `password` or `secret`, and these names (import URLs, keys, certificates, OTPs,
 * hooks, CI variables and traces). A bracketed name (`user[password]`, `hook[token]`) is checked part by part.
 */
const SECRET_PARAM = /token$|password|secret/i;
const SECRET_PARAM_NAMES = new Set([
  'import_url', 'key', 'encrypted_key', 'certificate', 'otp_attempt', 'hook', 'sentry_dsn', 'trace', 'variables',
]);

export function isSecretParam(name: string): boolean {
  for (const part of name.split(/[[\]]+/)) {
    if (part && (SECRET_PARAM.test(part) || SECRET_PARAM_NAMES.has(part.toLowerCase()))) return true;
  }
  return false;
}

/** A URL's userinfo (`scheme://user:password@`), written plainly or percent-encoded (a URL inside a query value). */
const USERINFO_SOURCE = String.raw`((?::|%3A)(?:\/|%2F){2})((?:(?!%2F|%3F|%23|%40)[^/?#@\s])+)(@|%40)`;
const USERINFO = new RegExp(USERINFO_SOURCE, 'gi');
const HAS_USERINFO = new RegExp(USERINFO_SOURCE, 'i');
const USERINFO_HINT = /@|%(?:25)*40/i;
/**
 * Whether a query may hold anything to censor (a secret parameter's name, or userinfo): most hold neither. A query with
 * percent-encoding is always read (a name may be encoded: `%70assword`).
 */
const QUERY_HINT = /token|password|secret|import_url|key|certificate|otp_attempt|hook|sentry_dsn|trace|variables|@|%(?:25)*40/i;

/** Decodes percent-encoding (up to three layers: a URL inside a query value may itself be encoded again); invalid stays as is. */
function fullyDecoded(text: string): string {
  let out = text.replace(/\+/g, ' ');
  for (let i = 0; i < 3 && out.includes('%'); i++) {
    try {
      const next = decodeURIComponent(out);
      if (next === out) break;
      out = next;
    } catch {
      break;
    }
  }
  return out;
}

function redactQuery(query: string): string {
  return query.replace(/([^&;=]*)(=?)([^&;]*)/g, (whole: string, name: string, eq: string, value: string) => {
    if (!eq || value === '') return whole;
    if (isSecretParam(fullyDecoded(name))) return `${name}=${REDACTED}`;
    // A value that is (or holds) a URL with credentials, however encoded: the value goes.
    if (USERINFO_HINT.test(value) && (HAS_USERINFO.test(value) || HAS_USERINFO.test(fullyDecoded(value)))) return `${name}=${REDACTED}`;
    return whole;
  });
}

/**
 * A URL or path as it may be logged: the values of secret query parameters (by name, GitLab's `filter_parameters`)
 * replaced, a query value holding a URL with credentials replaced, and any userinfo elsewhere in it
 * (`https://user:pass@host/…`) censored: `/x?private_token=abc&import_url=https%3A%2F%2Fu%3Ap%40h` →
 * `/x?private_token=[REDACTED]&import_url=[REDACTED]`.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  // Cheap test first: almost every URL has no query and no userinfo.
  if (q < 0 && !USERINFO_HINT.test(url)) return url;
  const hash = url.indexOf('#', q < 0 ? 0 : q);
  const end = hash < 0 ? url.length : hash;
  const base = q < 0 ? url.slice(0, end) : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1, end);
  const rest = q < 0 ? url.slice(end) : `?${QUERY_HINT.test(query) || query.includes('%') ? redactQuery(query) : query}${url.slice(end)}`;
  return (USERINFO_HINT.test(base) ? base.replace(USERINFO, `$1${REDACTED}$3`) : base) + rest;
}
