import { registerSecret, suiteLogDir } from './secret-registry';

/** Body and query fields whose values are secrets (GitLab's filter_parameters, plus the API's token fields). */
const SECRET_FIELDS = new Set([
  'password', 'password_confirmation', 'current_password', 'new_password', 'token', 'private_token', 'access_token', 'job_token', 'secret_token',
]);
const SECRET_HEADERS = ['private-token', 'job-token', 'x-gitlab-token'];
const PAT = /glpat-[A-Za-z0-9_-]{8,}/g;

/** The password inside a URL's userinfo (`http://user:secret@host/`), if any. */
function urlPassword(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]+@/i.test(value)) return undefined;
  try {
    return decodeURIComponent(new URL(value).password) || undefined;
  } catch {
    return undefined;
  }
}

/** Secrets inside a string: PATs anywhere, a password inside a URL. */
function secretsInText(value: string): string[] {
  const found = [...(value.match(PAT) ?? [])];
  const pw = urlPassword(value);
  if (pw) found.push(pw);
  return found;
}

const unique = (values: string[]) => [...new Set(values.filter((v) => v.length > 0))];

function fieldSecrets(value: unknown, key: string): string[] {
  if (typeof value === 'string') return SECRET_FIELDS.has(key.toLowerCase()) ? [value, ...secretsInText(value)] : secretsInText(value);
  if (Array.isArray(value)) return value.flatMap((v) => fieldSecrets(v, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => fieldSecrets(v, k));
  return [];
}

/** Secret field values and embedded secrets anywhere in a parsed JSON value or a flat field list. */
export function secretsInFields(value: unknown, key = ''): string[] {
  return unique(fieldSecrets(value, key));
}

function secretsInAuthorization(value: string): string[] {
  const [scheme, credentials = ''] = value.trim().split(/\s+/, 2);
  if (/^basic$/i.test(scheme ?? '')) {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? [decoded.slice(colon + 1)] : [];
  }
  return credentials ? [credentials] : [];
}

function secretsInBody(body: unknown): string[] {
  if (typeof body === 'string') {
    const text = body.trim();
    if (text.startsWith('{') || text.startsWith('[')) {
      try {
        return fieldSecrets(JSON.parse(text), '');
      } catch {
        return secretsInText(text);
      }
    }
    return secretsInBody(new URLSearchParams(text));
  }
  if (body instanceof URLSearchParams || (typeof FormData !== 'undefined' && body instanceof FormData)) {
    return [...(body as URLSearchParams).entries()].flatMap(([k, v]) => (typeof v === 'string' ? fieldSecrets(v, k) : []));
  }
  return [];
}

/** Every secret a `fetch(input, init)` call sends: token headers, credentials, `private_token` queries, secret body fields. */
export function secretsInRequest(input: string | URL | Request, init?: RequestInit): string[] {
  const found: string[] = [];
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  found.push(...secretsInText(url));
  try {
    const u = new URL(url);
    if (u.password) found.push(decodeURIComponent(u.password));
    found.push(...secretsInBody(u.searchParams));
  } catch {
    // not an absolute URL
  }
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  new Headers(init?.headers).forEach((v, k) => headers.set(k, v));
  for (const name of SECRET_HEADERS) {
    const v = headers.get(name);
    if (v) found.push(v);
  }
  const authorization = headers.get('authorization');
  if (authorization) found.push(...secretsInAuthorization(authorization));
  if (init?.body !== undefined && init.body !== null) found.push(...secretsInBody(init.body));
  return unique(found);
}

/** Secrets an API response hands out: `token` fields (new personal/project/group access tokens, rotations). */
export function secretsInResponse(json: unknown): string[] {
  return secretsInFields(json);
}

const g = globalThis as { __glpFetchCaptured__?: boolean };

/**
 * Wraps global `fetch` (the e2e tests' client, and @gitbeaker/rest's) to register every secret it sends or receives.
 * Installed by the e2e project's jest setup file; a no-op outside a suite run (GLP_SUITE_LOG_DIR unset).
 */
export function captureFetchSecrets(): void {
  if (!suiteLogDir() || g.__glpFetchCaptured__ || typeof globalThis.fetch !== 'function') return;
  g.__glpFetchCaptured__ = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    try {
      for (const s of secretsInRequest(input, init)) registerSecret(s, 'e2e request');
    } catch {
      // capture never breaks a test
    }
    const res = await original(input, init);
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      res
        .clone()
        .json()
        .then((json: unknown) => secretsInResponse(json).forEach((s) => registerSecret(s, 'e2e response')))
        .catch(() => undefined);
    }
    return res;
  };
}
