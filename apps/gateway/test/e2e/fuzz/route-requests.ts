import fc from 'fast-check';
import type { ParamDef } from '../../../src/http/params';
import type { RouteDef } from '../../../src/http/route';
import { deepValue, goodValue, invalidValue, nastyString, paramValue, RawBytes, wrongType, type Value } from './param-values';

/**
 * Requests for one route, generated from its definition: the path with each `:param` filled (known ids, random
 * text, bad percent-escapes), the declared params (from `paramValue`) split between query and body plus a few
 * undeclared ones, an encoding (JSON, urlencoded, multipart, text/plain, query only, odd content types and raw
 * bodies), and a caller (anonymous, a normal user, the administrator, an unknown token). Two shapes: chaotic
 * requests (anything anywhere), and plausible ones (values the schema accepts, known ids, a clean transport, now
 * and then one nasty value) that get past validation into the handlers and services.
 *
 * `knownBad` turns any request into one the gateway must refuse with a 4xx, by one poison the route allows.
 */

export type CallerKind = 'anonymous' | 'user' | 'admin' | 'bad-token';
export type TokenVia = 'header' | 'bearer' | 'query';
export type Encoding = 'query' | 'json' | 'form' | 'multipart' | 'text' | 'odd';

export interface FileSpec {
  field: string;
  filename: string;
  content: Buffer;
}

export interface RequestSpec {
  /** `METHOD /path` of the route (not the definition itself, so that failure reports stay short). */
  route: string;
  method: string;
  /** Under /api/v4, percent-encoded as sent. */
  path: string;
  query: Record<string, Value>;
  body: Record<string, Value>;
  encoding: Encoding;
  caller: CallerKind;
  via: TokenVia;
  files: FileSpec[];
  /** `odd` encoding: the Content-Type and bytes sent. */
  contentType?: string;
  rawBody?: Buffer;
  /** Appended to the query string as is. */
  rawQuery?: string;
  /** Sent instead of the caller's credentials. */
  authorization?: string;
  contentEncoding?: string;
  /** Sent as the Host header instead of the real one. */
  host?: string;
  truncateMultipart?: boolean;
  /** Known-bad requests: the poison applied. */
  poison?: string;
  [fc.toStringMethod]?: (this: RequestSpec) => string;
}

export interface FuzzContext {
  projectIds: number[];
  projectPaths: string[];
  userIds: number[];
}

const OMIT = Symbol('omit');
const TOKEN_KEYS = ['private_token', 'access_token', 'sudo'];
const EXTRA_KEYS = [...TOKEN_KEYS, 'page', 'per_page', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'id', 'zz', ''];

const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
export const encodeComponent = (s: string) => encodeURIComponent(wellFormed(s));

/** Sets a key even when it is `__proto__`, so it is sent as a param. */
function put(target: Record<string, Value>, key: string, value: Value): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export const routeKey = (route: RouteDef) => `${route.method} ${route.path}`;

/** How fast-check prints a request in a failure report. */
function summary(this: RequestSpec): string {
  const poison = this.poison ? ` poison=${this.poison}` : '';
  return `${this.method} ${this.path.slice(0, 120)} (${this.route}) ${this.encoding} as ${this.caller}${poison}`;
}

export const pathParamNames = (route: RouteDef) => [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

function pathSegment(ctx: FuzzContext): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...ctx.projectIds, ...ctx.userIds).map(String) },
    { weight: 2, arbitrary: fc.constantFrom(...ctx.projectPaths).map(encodeComponent) },
    { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 1e21), fc.bigInt()).map((n) => encodeComponent(String(n))) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encodeComponent) },
    { weight: 2, arbitrary: fc.constantFrom('%E0%A4%A', '%', '%zz', '%00', 'a%00b', '%C0%AF', '%ED%A0%80', '%FF', '%2e%2e', 'root%2F', '%2F%2F', 'root%2Fno%00') },
    { weight: 2, arbitrary: fc.constantFrom(...TRAVERSAL_SEGMENTS) },
    { weight: 1, arbitrary: fc.constantFrom(300, 5000).map((n) => 'a'.repeat(n)) },
  );
}

function plausibleValue(def: ParamDef, name: string): fc.Arbitrary<Value> {
  return fc.oneof({ weight: 12, arbitrary: goodValue(def, name) }, { weight: 1, arbitrary: nastyString });
}

function declaredParams(route: RouteDef, plausible: boolean): fc.Arbitrary<Array<[string, Value, boolean]>> {
  const inPath = new Set(pathParamNames(route));
  const fields = Object.entries(route.params.fields).filter(([name]) => !inPath.has(name));
  const omitWeight = Math.max(1, Math.round(fields.length / 3));
  const one = ([name, param]: [string, { def: ParamDef }]) =>
    fc.tuple(
      fc.constant(name),
      fc.oneof(
        { weight: param.def.required ? 1 : omitWeight, arbitrary: fc.constant<typeof OMIT>(OMIT) },
        { weight: param.def.required ? 5 : 2, arbitrary: plausible ? plausibleValue(param.def, name) : paramValue(param.def, name) },
      ),
      fc.boolean(), // in the query string rather than the body
    );
  return fc.tuple(...fields.map(one)).map((list) => list.filter((x): x is [string, Value, boolean] => x[1] !== OMIT));
}

function extraParams(route: RouteDef): fc.Arbitrary<Array<[string, Value, boolean]>> {
  const declared = new Set(Object.keys(route.params.fields));
  const keys = EXTRA_KEYS.filter((k) => !declared.has(k));
  return fc.array(fc.tuple(fc.constantFrom(...keys), fc.oneof(nastyString, wrongType, fc.string({ maxLength: 10 })), fc.boolean()), { maxLength: 2 });
}

/** Path ids that try to leave their namespace or route: dot segments, encoded and double-encoded slashes and dots. */
export const TRAVERSAL_SEGMENTS = ['..', '.', '..%2F..%2Fadmin', 'root%2F..%2Fother', 'root%252Fother', '%252e%252e%252f', '1%2F..%2F2',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..%5C..%5Cwindows', '%2E%2E', 'root%2F.%2Fx', '%2Froot%2Fx', 'root%2F%2Fx', '..%00', '%C0%AE%C0%AE%2F'];

/** Bodies over the fuzz stack's BODY_LIMIT (1 MB): 413 with a JSON body, whatever the route. One buffer, reused. */
export const OVERSIZED_JSON = Buffer.from(`{"name":"${'x'.repeat(1100 * 1024)}"}`);

const ODD_CONTENT_TYPES = [
  'text/xml', 'text/xml; charset=utf-8', '', '', 'application/x-yaml', 'text/csv', 'application/json-patch+json', 'application/javascript',
  'application/xml', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/x-www-form-urlencoded; charset=koi8-r',
  'multipart/form-data', 'multipart/form-data; boundary=', 'multipart/mixed; boundary=zz', 'application/octet-stream', 'text/html', '*/*',
  'application/vnd.api+json', 'application/merge-patch+json', 'garbage', 'application/json', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zz',
];

const deepJsonText = (depth: number) => `{"name":${'['.repeat(depth)}1${']'.repeat(depth)},"path":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;

const oddBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc.constantFrom('{"a":', '{"name":"x"', '[1,2', 'null', '"str"', '12', '{"name":"\\ud800"}', '{"name":"a\\u0000"}', 'name=%E0%A4%A', 'name=%',
    'name=x&name[]=y&name[a]=z', '--zz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--zz--\r\n', '--zz\r\n\r\n', '',
    '{"__proto__":{"admin":true},"name":"proto"}', '{"constructor":{"prototype":{"x":1}}}').map((s) => Buffer.from(s)),
  fc.constantFrom(Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc0, 0x22, 0x7d]), Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00])),
  fc.constantFrom(1000, 3000, 10_000).map((d) => Buffer.from(deepJsonText(d))),
  fc.constantFrom(Buffer.from(`${'['.repeat(20000)}${']'.repeat(20000)}`), Buffer.from(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`),
    Buffer.from(`{"name":"x","zz":${'['.repeat(10_000)}${']'.repeat(10_000)}}`)),
  fc.constantFrom(Buffer.from('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><project><name>&e;</name></project>'),
    Buffer.from('name: x\nvisibility: public\n'), Buffer.from('name,path\nx,y\n')),
);

const rawQuery = fc.constantFrom('%E0%A4%A', 'a=%', 'a[=1', 'a[][][]=1', 'a[b]=1&a=2', 'a[100]=x', '&&&', '=x', 'a=1;b=2', 'page[]=1',
  'per_page[x]=1', 'topic[]=a&topic=b', '%00=1', 'x=%ED%A0%80', 'q=%C0%AF', `deep${'[a]'.repeat(50)}=1`, 'a%5B%5D=1&a%5B%5D=2', '+=+',
  `deeper${'[a]'.repeat(3000)}=1`, `${'a[]'.repeat(2000)}=1`, 'id=..%2F..%2Fadmin', 'file_path=..%2F..%2Fetc%2Fpasswd', 'name=%E2%80%AEgpj.exe');

const authorization = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 20 }).map((b) => `Basic ${Buffer.from(b).toString('base64')}`),
  fc.constantFrom('Basic !!!', 'Basic ', 'Bearer', 'Bearer \u00e9\u00e0', 'Bearer glpat-\u00c0\u00af', 'Basic YQBiOmM=', 'Negotiate abc', 'Bearer  '),
);

/** Host headers, valid and not (no URL can be built from the invalid ones: RFC 9112 says 400). */
const host = fc.constantFrom('a b', '', '[::1', 'x:99999', 'exa%41mple', 'gitlab.example.com', 'gitlab.example.com:8443', '127.0.0.1', '[::1]:80', 'g\u00eftlab.example');

const fileSpec: fc.Arbitrary<FileSpec> = fc.record({
  field: fc.constantFrom('file', 'avatar', 'name', 'x[]'),
  filename: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('a\0b.png', '../../x', 'caf\u00e9.txt', '\ud800.bin', '😀.png',
    '../../etc/passwd', '..%2f..%2fetc%2fpasswd', '%2e%2e%2f%2e%2e%2fx.png', '..\\..\\boot.ini', '/etc/passwd', 'C:\\x.png', '.', '..', '',
    '\u202egnp.exe', 'e\u0301\u0301\u0301.png', 'x'.repeat(300))),
  content: fc.uint8Array({ maxLength: 2000 }).map((a) => Buffer.from(a)),
});

const plausibleSegment = (ctx: FuzzContext) =>
  fc.oneof(fc.constantFrom(...ctx.projectIds, ...ctx.userIds).map(String), fc.constantFrom(...ctx.projectPaths).map(encodeComponent));

/** A request for `route` without noise around its params: it reaches the handler unless a value is refused. */
function plausibleRequest(route: RouteDef, ctx: FuzzContext): fc.Arbitrary<RequestSpec> {
  const pathNames = pathParamNames(route);
  return fc
    .record({
      segments: fc.tuple(...pathNames.map(() => plausibleSegment(ctx))),
      declared: declaredParams(route, true),
      encoding: fc.constantFrom<Encoding>('json', 'json', 'form', 'multipart', 'query'),
      caller: route.access === 'public' ? fc.constantFrom<CallerKind>('anonymous', 'user', 'admin') : fc.constantFrom<CallerKind>('user', 'admin', 'admin'),
      via: fc.constantFrom<TokenVia>('header', 'bearer', 'query'),
      head: route.method === 'GET' ? fc.boolean() : fc.constant(false),
      files: fc.array(fileSpec, { maxLength: 1 }),
    })
    .map((g): RequestSpec => {
      let i = 0;
      const path = route.path.replace(/:(\w+)/g, () => g.segments[i++]!);
      const query: Record<string, Value> = {};
      const body: Record<string, Value> = {};
      for (const [name, value, inQuery] of g.declared) put(inQuery || g.encoding === 'query' ? query : body, name, value);
      return {
        [fc.toStringMethod]: summary,
        route: routeKey(route),
        method: g.head ? 'HEAD' : route.method,
        path,
        query,
        body,
        encoding: g.encoding,
        caller: g.caller,
        via: g.via,
        files: g.encoding === 'multipart' ? g.files : [],
      };
    });
}

/** Any request for `route`: chaotic (3 in 5) or plausible. */
export function routeRequest(route: RouteDef, ctx: FuzzContext): fc.Arbitrary<RequestSpec> {
  return fc.oneof({ weight: 3, arbitrary: chaoticRequest(route, ctx) }, { weight: 2, arbitrary: plausibleRequest(route, ctx) });
}

function chaoticRequest(route: RouteDef, ctx: FuzzContext): fc.Arbitrary<RequestSpec> {
  const pathNames = pathParamNames(route);
  return fc
    .record({
      segments: fc.tuple(...pathNames.map(() => pathSegment(ctx))),
      declared: declaredParams(route, false),
      extras: extraParams(route),
      encoding: fc.oneof(
        { weight: 4, arbitrary: fc.constant<Encoding>('json') },
        { weight: 3, arbitrary: fc.constant<Encoding>('form') },
        { weight: 3, arbitrary: fc.constant<Encoding>('multipart') },
        { weight: 2, arbitrary: fc.constant<Encoding>('query') },
        { weight: 1, arbitrary: fc.constant<Encoding>('text') },
        { weight: 1, arbitrary: fc.constant<Encoding>('odd') },
      ),
      caller: fc.oneof(
        { weight: 2, arbitrary: fc.constant<CallerKind>('anonymous') },
        { weight: 4, arbitrary: fc.constant<CallerKind>('user') },
        { weight: 4, arbitrary: fc.constant<CallerKind>('admin') },
        { weight: 1, arbitrary: fc.constant<CallerKind>('bad-token') },
      ),
      via: fc.constantFrom<TokenVia>('header', 'header', 'header', 'bearer', 'query'),
      head: route.method === 'GET' ? fc.boolean() : fc.constant(false),
      files: fc.array(fileSpec, { maxLength: 2 }),
      oddType: fc.constantFrom(...ODD_CONTENT_TYPES),
      oddBody,
      rawQuery: fc.option(rawQuery, { freq: 8 }),
      authorization: fc.option(authorization, { freq: 12 }),
      contentEncoding: fc.option(fc.constantFrom('gzip', 'deflate', 'br', 'compress', 'identity'), { freq: 20 }),
      host: fc.option(host, { freq: 15 }),
      truncate: fc.option(fc.constant(true), { freq: 10 }),
      deepBody: fc.option(fc.constantFrom(1000, 1200), { freq: 15 }),
    })
    .map((g): RequestSpec => {
      let i = 0;
      const path = route.path.replace(/:(\w+)/g, () => g.segments[i++]!);
      const query: Record<string, Value> = {};
      const body: Record<string, Value> = {};
      const bodyless = g.encoding === 'query' || g.encoding === 'text' || g.encoding === 'odd';
      for (const [name, value, inQuery] of [...g.declared, ...g.extras]) put(inQuery || bodyless ? query : body, name, value);
      if (g.deepBody !== null) put(body, 'nested', deepValue(g.deepBody, g.deepBody % 2 === 0));
      return {
        [fc.toStringMethod]: summary,
        route: routeKey(route),
        method: g.head ? 'HEAD' : route.method,
        path,
        query,
        body,
        encoding: g.encoding,
        caller: g.caller,
        via: g.via,
        files: g.encoding === 'multipart' ? g.files : [],
        contentType: g.encoding === 'odd' ? g.oddType : undefined,
        rawBody: g.encoding === 'odd' || g.encoding === 'text' ? g.oddBody : undefined,
        rawQuery: g.rawQuery ?? undefined,
        authorization: g.authorization ?? undefined,
        contentEncoding: g.contentEncoding ?? undefined,
        host: g.host ?? undefined,
        truncateMultipart: g.encoding === 'multipart' && g.truncate === true,
      };
    });
}

interface Poison {
  name: string;
  apply(spec: RequestSpec): RequestSpec;
}

function without(spec: RequestSpec, keys: readonly string[]): RequestSpec {
  const strip = (r: Record<string, Value>) => {
    const out: Record<string, Value> = {};
    for (const [k, v] of Object.entries(r)) if (!keys.includes(k)) put(out, k, v);
    return out;
  };
  return { ...spec, query: strip(spec.query), body: strip(spec.body) };
}

/** An `odd` raw body may carry any param (e.g. a JSON `name`); a param poison must not be undone by it. */
const plainBody = (s: RequestSpec): RequestSpec =>
  s.encoding === 'odd' ? { ...s, encoding: 'text', contentType: undefined, rawBody: Buffer.from('ignored') } : s;

/** Without `keys` anywhere a param could come from. */
const withoutParams = (s: RequestSpec, keys: readonly string[]) => without(plainBody(s), keys);

/** The param set to `value` in the query string and nowhere else (the body would win over the query). */
function withQueryParam(spec: RequestSpec, name: string, value: Value): RequestSpec {
  const s = withoutParams(spec, [name]);
  const query = { ...s.query };
  put(query, name, value);
  return { ...s, query };
}

/** Poisons that make any request for `route` one the gateway must refuse (4xx), whatever else it carries. */
function poisonsFor(route: RouteDef): Poison[] {
  const inPath = new Set(pathParamNames(route));
  const fields = Object.entries(route.params.fields).filter(([name]) => !inPath.has(name));
  const list: Poison[] = [
    { name: 'nul-in-query', apply: (s) => withQueryParam(s, 'zz_poison', 'a\0b') },
    { name: 'bad-escape-in-path', apply: (s) => ({ ...s, path: `${s.path}%E0%A4%A` }) },
    { name: 'bad-escape-in-query', apply: (s) => ({ ...s, rawQuery: 'zz_poison=%E0%A4%A' }) },
    { name: 'bad-host', apply: (s) => ({ ...s, host: 'a b' }) },
    { name: 'nul-in-credentials', apply: (s) => ({ ...s, authorization: `Basic ${Buffer.from('a\0b:c').toString('base64')}` }) },
    { name: 'lone-surrogate-in-json', apply: (s) => ({ ...s, encoding: 'json', contentType: undefined, rawBody: undefined, body: { ...s.body, zz_poison: 'a\ud800' } }) },
    { name: 'invalid-utf8-json', apply: (s) => ({ ...s, encoding: 'odd', contentType: 'application/json', rawBody: Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) }) },
    { name: 'invalid-json', apply: (s) => ({ ...s, encoding: 'odd', contentType: 'application/json', rawBody: Buffer.from('{"name":') }) },
    { name: 'broken-multipart', apply: (s) => ({ ...s, encoding: 'odd', contentType: 'multipart/form-data', rawBody: Buffer.from('--x\r\n') }) },
    { name: 'invalid-utf8-multipart', apply: (s) => ({ ...s, encoding: 'multipart', truncateMultipart: false, body: { ...s.body, zz_poison: new RawBytes(Buffer.from([0x61, 0xc0, 0x62])) } }) },
    // Clean transport (no odd Host, query, encoding or credentials), so that the body limit is what refuses it.
    { name: 'oversized-json', apply: (s) => ({ ...s, query: {}, rawQuery: undefined, host: undefined, contentEncoding: undefined, authorization: undefined, encoding: 'odd', contentType: 'application/json', rawBody: OVERSIZED_JSON }) },
    { name: 'unknown-token', apply: (s) => ({ ...without(s, TOKEN_KEYS), caller: 'bad-token', authorization: undefined }) },
  ];
  if (route.access !== 'public') {
    list.push({ name: 'anonymous', apply: (s) => ({ ...without(s, TOKEN_KEYS), caller: 'anonymous', authorization: undefined }) });
  }
  if (route.access === 'admin') {
    list.push({ name: 'not-admin', apply: (s) => ({ ...without(s, TOKEN_KEYS), caller: 'user', authorization: undefined }) });
  }
  for (const [name, param] of fields) {
    const bad = invalidValue(param.def);
    if (bad !== undefined) list.push({ name: `invalid-${param.def.kind}${param.def.items ? `-of-${param.def.items}` : ''}:${name}`, apply: (s) => withQueryParam(s, name, bad) });
    if (param.def.required) list.push({ name: `missing:${name}`, apply: (s) => withoutParams(s, [name]) });
  }
  for (const rule of route.params.rules) {
    if (rule.kind === 'at_least_one_of' || rule.kind === 'exactly_one_of') {
      list.push({ name: `${rule.kind}:${rule.keys.join(',')}`, apply: (s) => withoutParams(s, rule.keys) });
    }
  }
  return list;
}

/** A request for `route` with one poison: the gateway must answer it with a 4xx and change nothing. */
export function knownBadRequest(route: RouteDef, ctx: FuzzContext): fc.Arbitrary<RequestSpec> {
  const poisons = poisonsFor(route);
  return fc.tuple(routeRequest(route, ctx), fc.constantFrom(...poisons)).map(([spec, poison]) => ({ ...poison.apply(spec), poison: poison.name }));
}
