import { HttpError } from './errors';
import { INVALID, coerceInt32 } from './param-coercion';
import { p } from './params';

/**
 * GitLab offset pagination: `API::PaginationParams` (`lib/api/concerns/pagination_params.rb`), Kaminari
 * (`page`/`per`, `config/initializers/kaminari_config.rb`: default 20, max 100) and the headers of
 * `Gitlab::Pagination::OffsetHeaderBuilder` (`lib/gitlab/pagination/offset_header_builder.rb`).
 */

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** GitLab's `use :pagination` params, to spread into a route's `defineParams({...})`. */
export const paginationParams = {
  page: p.int32().default(1),
  per_page: p.int32().default(DEFAULT_PER_PAGE).except([0]),
};

export interface Pagination {
  page: number;
  perPage: number;
}

/**
 * Effective page and per_page, as GitLab computes them (feature flag `only_positive_pagination_values` off, its default):
 * - `page` missing/empty → 1; `page` ≤ 0 → 1 (Kaminari); `page=abc` → 400 `{"error":"page is invalid"}`.
 * - Both travel in protobuf `int32` fields: beyond ±2^31 they are invalid too (400, not an encoding failure).
 * - `per_page` missing/empty → 20; `per_page` < 0 → 20 (Kaminari ignores it); > 100 → 100 (Kaminari `max_per_page`);
 *   `per_page=0` → 400 `{"error":"per_page has a value not allowed"}` (`except_values: [0]`);
 *   `per_page=abc` → 400 `{"error":"per_page is invalid"}`.
 * Throws `HttpError.paramError` for the 400 cases. Accepts raw strings or already-coerced numbers.
 */
export function parsePagination(
  raw: Record<string, unknown>,
  opts: { maxPerPage?: number; defaultPerPage?: number } = {},
): Pagination {
  const max = opts.maxPerPage ?? MAX_PER_PAGE;
  const def = opts.defaultPerPage ?? DEFAULT_PER_PAGE;
  const page = coerceInt32(raw.page);
  const perPage = coerceInt32(raw.per_page);
  const errors: string[] = [];
  if (page === INVALID) errors.push('page is invalid');
  if (perPage === INVALID) errors.push('per_page is invalid');
  else if (perPage === 0) errors.push('per_page has a value not allowed');
  if (errors.length > 0 || page === INVALID || perPage === INVALID) throw HttpError.paramError(errors.join(', '));
  return {
    page: page === null || page < 1 ? 1 : page,
    perPage: perPage === null || perPage < 0 ? def : Math.min(perPage, max),
  };
}

export interface PaginationHeaderInput {
  /** The request's external URL (configured GitLab host/port); its path is kept, its query is rebuilt. */
  requestUrl: URL;
  page: number;
  perPage: number;
  /** Total count; leave undefined when it is not counted (GitLab: > 10,000 rows) → no X-Total, X-Total-Pages, rel="last". */
  total?: number;
  /**
   * Grape's `params` (all request params incl. route params like `id`, declared ones coerced, defaults filled),
   * serialized into each link like Rails `Hash#to_query`. Defaults to the request URL's own query parameters.
   */
  params?: Record<string, unknown>;
  /** Without a total: whether another page exists (Kaminari `without_count` looks one row ahead). */
  hasNextPage?: boolean;
  /** Without a total: rows on this page; 0 means out of range (no prev/next). */
  itemCount?: number;
}

/**
 * `X-Per-Page`, `X-Page`, `X-Next-Page`, `X-Prev-Page` (empty string when none), `Link`, `X-Total`, `X-Total-Pages`
 * (≥ 1), in GitLab's order. Links: `<url>; rel="prev"`, `rel="next"` (when they exist), `rel="first"`, `rel="last"`
 * (only with a total), joined by ", ". Next/prev follow Kaminari: none when the page is out of range.
 */
export function paginationHeaders(input: PaginationHeaderInput): Record<string, string> {
  const { requestUrl, page, perPage, total } = input;
  let next: number | null;
  let prev: number | null;
  let totalPages: number | undefined;
  if (total !== undefined) {
    const pages = Math.ceil(total / perPage);
    const outOfRange = page > pages;
    next = !outOfRange && page < pages ? page + 1 : null;
    prev = !outOfRange && page > 1 ? page - 1 : null;
    totalPages = Math.max(pages, 1); // "Ensure there is in total at least 1 page"
  } else {
    const outOfRange = input.itemCount === 0;
    next = !outOfRange && input.hasNextPage === true ? page + 1 : null;
    prev = !outOfRange && page > 1 ? page - 1 : null;
  }

  const base = `${requestUrl.origin}${requestUrl.pathname}`;
  const params = input.params ?? searchParamsToRecord(requestUrl.searchParams);
  const linkPerPage = params.per_page ?? perPage; // GitLab echoes the requested per_page, not the clamped one
  const query = pageLinkQuery({ ...params, per_page: linkPerPage });
  const href = (target: number) => `${base}?${query(target)}`;
  const links: string[] = [];
  if (prev !== null) links.push(`<${href(prev)}>; rel="prev"`);
  if (next !== null) links.push(`<${href(next)}>; rel="next"`);
  links.push(`<${href(1)}>; rel="first"`);
  if (totalPages !== undefined) links.push(`<${href(totalPages)}>; rel="last"`);

  const headers: Record<string, string> = {
    'X-Per-Page': String(perPage),
    'X-Page': String(page),
    'X-Next-Page': next === null ? '' : String(next),
    'X-Prev-Page': prev === null ? '' : String(prev),
    Link: links.join(', '),
  };
  if (total !== undefined && totalPages !== undefined) {
    headers['X-Total'] = String(total);
    headers['X-Total-Pages'] = String(totalPages);
  }
  return headers;
}

/** What `CGI.escape` leaves as it is (most keys and values of a listing's links: no encoding, no replacements). */
const CGI_SAFE = /^[A-Za-z0-9_.~-]*$/;

/** Ruby `CGI.escape`: everything but `a-zA-Z0-9_.-~` percent-encoded (upper-case hex), space → "+". */
export function cgiEscape(s: string): string {
  if (CGI_SAFE.test(s)) return s;
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

const isHash = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

function valueToQuery(value: unknown, key: string): string {
  if (Array.isArray(value)) {
    const prefix = `${key}[]`;
    return value.length === 0 ? `${cgiEscape(prefix)}=` : value.map((v) => valueToQuery(v, prefix)).join('&');
  }
  if (isHash(value)) return hashToQuery(value, key);
  const s = value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : String(value);
  return `${cgiEscape(key)}=${cgiEscape(s)}`;
}

/** The pairs of `Hash#to_query` before they are joined: sorted, except within an array's hashes. */
function queryParts(hash: Record<string, unknown>, namespace?: string): string[] {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(hash)) {
    if (v === undefined || ((Array.isArray(v) || isHash(v)) && Object.keys(v).length === 0)) continue;
    parts.push(valueToQuery(v, namespace === undefined ? k : `${namespace}[${k}]`));
  }
  if (!(namespace ?? '').includes('[]')) parts.sort();
  return parts;
}

const hashToQuery = (hash: Record<string, unknown>, namespace?: string): string => queryParts(hash, namespace).join('&');

/** Rails `Hash#to_query`: `key=v`, arrays as `key%5B%5D=v`, hashes as `key%5Bsub%5D=v`, pairs sorted, empty collections dropped. */
export const toQuery = (params: Record<string, unknown>): string => hashToQuery(params);

/**
 * `toQuery({ ...params, page })` for any page, the other pairs encoded and sorted once for the three or four links of a
 * page (~20 µs a listing before). No other pair starts with `page=`, so where `page=<n>` sorts among them does not
 * depend on n: every other pair differs from `page=` within its first five characters.
 */
function pageLinkQuery(params: Record<string, unknown>): (page: number) => string {
  const { page: _page, ...others } = params;
  const parts = queryParts(others);
  const after = parts.findIndex((part) => part > 'page=');
  const head = parts.slice(0, after < 0 ? parts.length : after).join('&');
  const tail = after < 0 ? '' : parts.slice(after).join('&');
  return (page) => `${head ? `${head}&` : ''}page=${page}${tail ? `&${tail}` : ''}`;
}

/** URL query → record for `toQuery`; `a[]=1&a[]=2` becomes `a: ["1","2"]`, other keys are kept verbatim. */
function searchParamsToRecord(sp: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of sp) {
    const isList = k.endsWith('[]');
    const name = isList ? k.slice(0, -2) : k;
    if (name === '__proto__') continue;
    const prev = out[name];
    out[name] = isList ? [...(Array.isArray(prev) ? prev : []), v] : v;
  }
  return out;
}

/**
 * A page of a listing as a route answers it: the presented items and GitLab's pagination headers. `total` is the
 * service's count (-1 when it stopped counting: no X-Total, and the next page is guessed from a full page).
 */
export function pageResult<T>(
  req: { originalUrl: string },
  base: string,
  page: Pagination,
  items: readonly T[],
  total: number,
): { body: readonly T[]; headers: Record<string, string> } {
  const counted = total >= 0;
  return {
    body: items,
    headers: paginationHeaders({
      requestUrl: new URL(req.originalUrl, base),
      page: page.page,
      perPage: page.perPage,
      total: counted ? total : undefined,
      hasNextPage: counted ? page.page * page.perPage < total : items.length === page.perPage,
      itemCount: items.length,
    }),
  };
}

/** GitLab's 405 when `pagination=keyset` is asked with an ordering keyset does not support (`Gitlab::Pagination::Keyset.available?`). */
export const KEYSET_UNAVAILABLE = 'Keyset pagination is not yet available for this type of request';

/**
 * The `Link` of a keyset page (`Gitlab::Pagination::Keyset::RequestContext` + `HeaderBuilder`): the request's query
 * with `id_after=<last id>` (ascending) or `id_before=<last id>` (descending) merged in, as `<url>; rel="next"`.
 * Only while rows follow (the keyset pager's `end_reached`: it reads one row beyond the page): a client walking the
 * links is never sent to an empty page (undefined: no link).
 */
export function keysetNextLink(requestUrl: URL, sort: 'asc' | 'desc', lastId: number | undefined, more: boolean): string | undefined {
  if (lastId === undefined || !more) return undefined;
  const params = searchParamsToRecord(requestUrl.searchParams);
  params[sort === 'desc' ? 'id_before' : 'id_after'] = lastId;
  return `<${requestUrl.origin}${requestUrl.pathname}?${toQuery(params)}>; rel="next"`;
}

/** A keyset page as a route answers it: the items and only a `Link: <…>; rel="next"` header (none on the last page). */
export function keysetResult<T>(
  req: { originalUrl: string },
  base: string,
  sort: 'asc' | 'desc',
  items: readonly T[],
  lastId: number | undefined,
  more: boolean,
): { body: readonly T[]; headers: Record<string, string> } {
  const link = keysetNextLink(new URL(req.originalUrl, base), sort, lastId, more);
  return { body: items, headers: link === undefined ? {} : { Link: link } };
}
