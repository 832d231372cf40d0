import { HttpError } from './errors';
import { cgiEscape, keysetNextLink, keysetResult, paginationHeaders, paginationParams, parsePagination, toQuery } from './pagination';
import { defineParams, parseParams } from './params';

const paramError = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) return { status: e.status, body: e.body };
    throw e;
  }
  throw new Error('expected an HttpError');
};

describe('parsePagination', () => {
  it('defaults to page 1, per_page 20', () => expect(parsePagination({})).toEqual({ page: 1, perPage: 20 }));
  it('coerces numeric strings', () => expect(parsePagination({ page: '3', per_page: '50' })).toEqual({ page: 3, perPage: 50 }));
  it('accepts already-coerced numbers', () => expect(parsePagination({ page: 2, per_page: 10 })).toEqual({ page: 2, perPage: 10 }));
  it('page <= 0 behaves as page 1 (Kaminari)', () => {
    expect(parsePagination({ page: '0' }).page).toBe(1);
    expect(parsePagination({ page: '-10' }).page).toBe(1);
  });
  it('empty values fall back to the defaults', () => expect(parsePagination({ page: '', per_page: '' })).toEqual({ page: 1, perPage: 20 }));
  it('per_page above the maximum is clamped to 100', () => expect(parsePagination({ per_page: '500' }).perPage).toBe(100));
  it('negative per_page falls back to the default', () => expect(parsePagination({ per_page: '-1' }).perPage).toBe(20));
  it('honours opts', () => {
    expect(parsePagination({ per_page: '70' }, { maxPerPage: 50 }).perPage).toBe(50);
    expect(parsePagination({}, { defaultPerPage: 10 }).perPage).toBe(10);
  });
  it('400 "page is invalid" for non-integers', () => {
    expect(paramError(() => parsePagination({ page: 'a' }))).toEqual({ status: 400, body: { error: 'page is invalid' } });
    expect(paramError(() => parsePagination({ page: '1.5' }))).toEqual({ status: 400, body: { error: 'page is invalid' } });
  });
  it('400 "page is invalid" / "per_page is invalid" beyond int32 (they travel in protobuf int32 fields)', () => {
    expect(paramError(() => parsePagination({ page: '2147483648' }))).toEqual({ status: 400, body: { error: 'page is invalid' } });
    expect(paramError(() => parsePagination({ per_page: -2147483649 }))).toEqual({ status: 400, body: { error: 'per_page is invalid' } });
    expect(parsePagination({ page: '2147483647', per_page: '-2147483648' })).toEqual({ page: 2147483647, perPage: 20 });
  });
  it('400 "per_page is invalid" / "per_page has a value not allowed"', () => {
    expect(paramError(() => parsePagination({ per_page: 'x' }))).toEqual({ status: 400, body: { error: 'per_page is invalid' } });
    expect(paramError(() => parsePagination({ per_page: '0' }))).toEqual({
      status: 400,
      body: { error: 'per_page has a value not allowed' },
    });
    expect(paramError(() => parsePagination({ page: 'a', per_page: 'b' }))).toEqual({
      status: 400,
      body: { error: 'page is invalid, per_page is invalid' },
    });
  });
  it('paginationParams plug into a route schema with the same messages', () => {
    const s = defineParams({ ...paginationParams });
    expect(parseParams(s, {})).toEqual({ ok: true, value: { page: 1, per_page: 20 } });
    expect(parseParams(s, { per_page: '0' })).toEqual({ ok: false, error: 'per_page has a value not allowed' });
    expect(parseParams(s, { page: 'x' })).toEqual({ ok: false, error: 'page is invalid' });
  });
});

describe('paginationHeaders', () => {
  const url = new URL('https://gitlab.example.com/api/v4/projects?search=foo&page=2&per_page=3');
  const link = (page: number, rel: string) =>
    `<https://gitlab.example.com/api/v4/projects?page=${page}&per_page=3&search=foo>; rel="${rel}"`;

  it('a middle page: all headers, rels in GitLab order', () => {
    const h = paginationHeaders({ requestUrl: url, page: 2, perPage: 3, total: 8 });
    expect(h).toEqual({
      'X-Per-Page': '3',
      'X-Page': '2',
      'X-Next-Page': '3',
      'X-Prev-Page': '1',
      Link: [link(1, 'prev'), link(3, 'next'), link(1, 'first'), link(3, 'last')].join(', '),
      'X-Total': '8',
      'X-Total-Pages': '3',
    });
    expect(Object.keys(h)).toEqual(['X-Per-Page', 'X-Page', 'X-Next-Page', 'X-Prev-Page', 'Link', 'X-Total', 'X-Total-Pages']);
  });
  it('first page: no prev; empty X-Prev-Page', () => {
    const h = paginationHeaders({ requestUrl: url, page: 1, perPage: 3, total: 8 });
    expect(h['X-Prev-Page']).toBe('');
    expect(h['X-Next-Page']).toBe('2');
    expect(h.Link).toBe([link(2, 'next'), link(1, 'first'), link(3, 'last')].join(', '));
  });
  it('last page: no next; empty X-Next-Page', () => {
    const h = paginationHeaders({ requestUrl: url, page: 3, perPage: 3, total: 8 });
    expect(h['X-Next-Page']).toBe('');
    expect(h.Link).toBe([link(2, 'prev'), link(1, 'first'), link(3, 'last')].join(', '));
  });
  it('total 0: X-Total-Pages is 1, only first/last links', () => {
    const h = paginationHeaders({ requestUrl: url, page: 1, perPage: 3, total: 0 });
    expect(h).toMatchObject({ 'X-Total': '0', 'X-Total-Pages': '1', 'X-Next-Page': '', 'X-Prev-Page': '' });
    expect(h.Link).toBe([link(1, 'first'), link(1, 'last')].join(', '));
  });
  it('page out of range: neither prev nor next (Kaminari)', () => {
    const h = paginationHeaders({ requestUrl: url, page: 9, perPage: 3, total: 8 });
    expect(h).toMatchObject({ 'X-Page': '9', 'X-Next-Page': '', 'X-Prev-Page': '' });
    expect(h.Link).toBe([link(1, 'first'), link(3, 'last')].join(', '));
  });
  it('unknown total (> 10,000): no X-Total, X-Total-Pages or rel="last"', () => {
    const h = paginationHeaders({ requestUrl: url, page: 2, perPage: 3, hasNextPage: true });
    expect(h).toEqual({
      'X-Per-Page': '3',
      'X-Page': '2',
      'X-Next-Page': '3',
      'X-Prev-Page': '1',
      Link: [link(1, 'prev'), link(3, 'next'), link(1, 'first')].join(', '),
    });
    expect(paginationHeaders({ requestUrl: url, page: 2, perPage: 3 })['X-Next-Page']).toBe('');
    expect(paginationHeaders({ requestUrl: url, page: 4, perPage: 3, itemCount: 0, hasNextPage: false })['X-Prev-Page']).toBe('');
  });
  it('serializes Grape params like Rails to_query: sorted, route params and defaults included', () => {
    const h = paginationHeaders({
      requestUrl: new URL('https://gitlab.example.com/api/v4/projects/8/issues/8/notes?per_page=3&page=2'),
      page: 2,
      perPage: 3,
      total: 9,
      params: { noteable_id: 8, id: '8', page: 2, per_page: 3 },
    });
    const l = (page: number, rel: string) =>
      `<https://gitlab.example.com/api/v4/projects/8/issues/8/notes?id=8&noteable_id=8&page=${page}&per_page=3>; rel="${rel}"`;
    expect(h.Link).toBe([l(1, 'prev'), l(3, 'next'), l(1, 'first'), l(3, 'last')].join(', '));
  });
  it('links echo the requested per_page while X-Per-Page shows the effective one', () => {
    const h = paginationHeaders({
      requestUrl: new URL('https://h/api/v4/projects?per_page=500'),
      page: 1,
      perPage: 100,
      total: 150,
    });
    expect(h['X-Per-Page']).toBe('100');
    expect(h.Link).toBe(
      '<https://h/api/v4/projects?page=2&per_page=500>; rel="next", <https://h/api/v4/projects?page=1&per_page=500>; rel="first", <https://h/api/v4/projects?page=2&per_page=500>; rel="last"',
    );
  });
  it('keeps array params from the URL in order, and escapes like CGI.escape', () => {
    const h = paginationHeaders({
      requestUrl: new URL('http://localhost:3000/api/v4/projects?topic[]=b&topic[]=a&search=a%20b%2Bc'),
      page: 1,
      perPage: 20,
      total: 1,
    });
    expect(h.Link).toBe(
      '<http://localhost:3000/api/v4/projects?page=1&per_page=20&search=a+b%2Bc&topic%5B%5D=b&topic%5B%5D=a>; rel="first", ' +
        '<http://localhost:3000/api/v4/projects?page=1&per_page=20&search=a+b%2Bc&topic%5B%5D=b&topic%5B%5D=a>; rel="last"',
    );
  });
  it('places page among the other pairs as Hash#to_query sorts them, whatever its number (keys around "page=")', () => {
    const params = { 'page-size': 'x', page2: 'y', 'page[a]': 'z', pagination: 'keyset', pag: 'w', order_by: 'id', 'páge': 'u' };
    for (const [page, total] of [[1, 5], [9, 99], [10, 100], [123, 9999]] as const) {
      const h = paginationHeaders({ requestUrl: new URL('https://h/api/v4/projects'), page, perPage: 1, total, params });
      const links = [page > 1 ? [page - 1, 'prev'] : [], [page + 1, 'next'], [1, 'first'], [total, 'last']].filter((x) => x.length) as [number, string][];
      expect(h.Link).toBe(links.map(([n, rel]) => `<https://h/api/v4/projects?${toQuery({ ...params, page: n, per_page: 1 })}>; rel="${rel}"`).join(', '));
    }
  });
  it('drops the default port like Ruby URI', () => {
    const h = paginationHeaders({ requestUrl: new URL('https://h:443/api/v4/x'), page: 1, perPage: 20, total: 1 });
    expect(h.Link.startsWith('<https://h/api/v4/x?page=1&per_page=20>')).toBe(true);
  });
});

describe('toQuery / cgiEscape', () => {
  it('matches Rails Hash#to_query', () => {
    expect(toQuery({ b: '2', a: ['x', 'y'], h: { z: 1, c: true }, n: null, empty: [], e2: {} })).toBe(
      'a%5B%5D=x&a%5B%5D=y&b=2&h%5Bc%5D=true&h%5Bz%5D=1&n=',
    );
  });
  it('serializes dates as ISO strings', () => expect(toQuery({ d: new Date('2020-01-01T00:00:00Z') })).toBe('d=2020-01-01T00%3A00%3A00.000Z'));
  it('escapes like Ruby CGI.escape', () => {
    expect(cgiEscape("a b!*'()~._-/é")).toBe('a+b%21%2A%27%28%29~._-%2F%C3%A9');
  });
  it('leaves only a-z A-Z 0-9 _ . ~ - as they are, every other character escaped as before the fast path', () => {
    const escaped = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
    for (let code = 0; code < 0x250; code++) {
      const c = String.fromCharCode(code);
      expect([c, cgiEscape(c)]).toEqual([c, escaped(c)]);
      expect(cgiEscape(`ab${c}9`)).toBe(escaped(`ab${c}9`));
    }
    expect(cgiEscape('last_activity_at')).toBe('last_activity_at');
    expect(cgiEscape('')).toBe('');
  });
});

describe('keyset pagination links', () => {
  const url = new URL('http://gl.test/api/v4/projects?pagination=keyset&order_by=id&per_page=2&topic[]=a');

  it('adds id_before (desc) or id_after (asc) of the last item to the original query, as rel="next" only', () => {
    expect(keysetNextLink(url, 'desc', 41, true)).toBe(
      '<http://gl.test/api/v4/projects?id_before=41&order_by=id&pagination=keyset&per_page=2&topic%5B%5D=a>; rel="next"',
    );
    expect(keysetNextLink(url, 'asc', 7, true)).toBe(
      '<http://gl.test/api/v4/projects?id_after=7&order_by=id&pagination=keyset&per_page=2&topic%5B%5D=a>; rel="next"',
    );
  });

  it('replaces a previous bound and has no link for an empty page', () => {
    const next = new URL('http://gl.test/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after=7');
    expect(keysetNextLink(next, 'asc', 9, true)).toBe('<http://gl.test/api/v4/projects?id_after=9&order_by=id&pagination=keyset&sort=asc>; rel="next"');
    expect(keysetNextLink(next, 'asc', undefined, false)).toBeUndefined();
  });

  it('answers only a Link header (no X-Total, X-Page …), none on an empty page', () => {
    const req = { originalUrl: '/api/v4/projects?pagination=keyset&order_by=id' };
    expect(keysetResult(req, 'http://gl.test', 'desc', [{ id: 5 }], 5, true).headers).toEqual({
      Link: '<http://gl.test/api/v4/projects?id_before=5&order_by=id&pagination=keyset>; rel="next"',
    });
    expect(keysetResult(req, 'http://gl.test', 'desc', [], undefined, false)).toEqual({ body: [], headers: {} });
    // The last page (no row follows, however many it holds): no link, so a client walking them stops there.
    expect(keysetResult(req, 'http://gl.test', 'desc', [{ id: 5 }], 5, false)).toEqual({ body: [{ id: 5 }], headers: {} });
  });
});
