import fc from 'fast-check';
import type { ParamDef, ScalarKind } from '../../../src/http/params';

/**
 * Values for one declared param, generated from its `ParamDef` (kind, values list, range): values of its own
 * kind, edge values of that kind (int32/2^53 overflow, impossible dates, invalid enums), values of the wrong
 * type (arrays and hashes for scalars, deep nesting), and nasty strings (NUL, control characters, lone
 * surrogates, bytes that are not UTF-8, very long text).
 */

/** Bytes sent as they are in query strings, urlencoded and multipart bodies (e.g. not UTF-8); as Latin-1 text in JSON. */
export class RawBytes {
  constructor(readonly bytes: Buffer) {}
  toJSON(): string {
    return this.bytes.toString('latin1');
  }
}

export type Value = string | number | boolean | null | RawBytes | Value[] | { [key: string]: Value };

const INT32_EDGES = [2 ** 31, 2 ** 31 - 1, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, -1, 0, 1];
const INTEGER_EDGES = [2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, -(2 ** 53) - 1, 1e308, -1e308, 1.5, -0.5, 1e21];
const INTEGER_TEXT = ['99999999999999999999', '2147483648', '-2147483649', '9007199254740993', '1_000', ' 7 ', '+5', '-0',
  '0x10', '1e3', '1.0', '١٢', 'NaN', 'Infinity', '', ' ', '--1', '0b11'];
const BOOLEAN_BAD = ['maybe', 'tRUE', ' true', '2', 2, -1, 'null', ''];
const DATE_BAD = ['2020-02-30', '0000-01-01', '99999-01-01', '2020-1-1', 'today', '2020-13-01', '1969-12-31', '2020-01-01T25:61:00Z',
  '2020-01-01T00:00:00+99:00', '10000-01-01T00:00:00Z', '-001000-01-01'];

/** Strings no valid request carries, and strings that stress storage and escaping. */
export const nastyString: fc.Arbitrary<Value> = fc.oneof(
  fc.string({ maxLength: 20 }).map((s) => `${s}\0${s}`),
  fc.string({ unit: fc.integer({ min: 1, max: 31 }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 10 }),
  fc.constantFrom('\ud800', 'a\udc00b', '\udfff\ud800', '\u202e\u0000', '\ufffe\uffff', '\u0085\u2028\u2029'),
  fc.constantFrom([0xc0, 0xaf], [0xff, 0xfe], [0xed, 0xa0, 0x80], [0x61, 0xe0, 0xa4], [0xf4, 0x90, 0x80, 0x80], [0x00])
    .map((b) => new RawBytes(Buffer.from([0x61, ...b, 0x62]))),
  // Unicode that renders or compares oddly: RTL overrides and RTL scripts, stacked combining marks, zero-width and
  // BOM, emoji sequences, fullwidth and dotless letters (case folding), and overlong UTF-8 (sent as raw bytes).
  fc.constantFrom('\u202egpj.exe', '\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627', 'Z\u0351\u0352\u0353\u0354\u0355\u0356\u0357', 'e\u0301\u0301\u0301\u0301',
    '\u200b\u200c\u200d\u2060', '\ufeffname', '👨‍👩‍👧‍👦🏳️‍🌈', 'ｒｏｏｔ', 'ı\u0130ß', '\u0000\u001f\u007f\u0080\u009f'),
  fc.constantFrom([0xe0, 0x80, 0xaf], [0xf0, 0x80, 0x80, 0xaf], [0xc0, 0xae, 0xc0, 0xae, 0x2f], [0xf8, 0x88, 0x80, 0x80, 0x80])
    .map((b) => new RawBytes(Buffer.from(b))),
  fc.constantFrom('..%2f..%2fetc%2fpasswd', '%2e%2e%2f', '..\\..\\windows\\win.ini', '/etc/passwd', 'file:///etc/passwd', '....//....//'),
  fc.constantFrom("'; DROP TABLE projects; --", '%00', '%E0%A4%A', '../../etc/passwd', '${jndi:ldap://x}', '<script>', '\\', '"', '{{7*7}}'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 10 }),
  fc.constantFrom(256, 2001, 10_000, 70_000).map((n) => 'x'.repeat(n)),
  fc.constantFrom(300, 3000).map((n) => '😀'.repeat(n)),
);

/** Nested ~`depth` levels: arrays or hashes inside each other. */
export function deepValue(depth: number, hash: boolean): Value {
  let v: Value = 'leaf';
  for (let i = 0; i < depth; i++) v = hash ? { a: v } : [v];
  return v;
}

const smallScalar: fc.Arbitrary<Value> = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const tree: fc.Arbitrary<Value> = fc.letrec<{ node: Value }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    smallScalar,
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('node'), { maxKeys: 3 }),
  ),
})).node;

/** Anything but what a param expects: collections for scalars, scalars for collections, deep nesting. */
export const wrongType: fc.Arbitrary<Value> = fc.oneof(
  tree,
  fc.array(smallScalar, { minLength: 1, maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), smallScalar, { minKeys: 1, maxKeys: 3 }),
  fc.double({ noDefaultInfinity: false }).map((d) => (Number.isFinite(d) ? d : String(d))),
  fc.constant(null),
  fc.constantFrom(true, false),
  fc.constantFrom(900, 1000, 1100).chain((d) => fc.boolean().map((hash) => deepValue(d, hash))),
);

/** Plausible strings for well-known param names, so that plausible requests get past the services' validations. */
function namedString(name: string): fc.Arbitrary<Value> | undefined {
  if (/email/.test(name)) return fc.emailAddress();
  if (/url/.test(name)) return fc.webUrl();
  if (name === 'password') return fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 20 });
  if (/^(name|path|username|default_branch)$/.test(name)) return fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{2,30}$/);
  return undefined;
}

function scalarGood(kind: ScalarKind, def: Pick<ParamDef, 'values' | 'min' | 'max'>, name = ''): fc.Arbitrary<Value> {
  if (def.values && def.values.length > 0) return fc.constantFrom(...(def.values as Value[]));
  switch (kind) {
    case 'string':
      return namedString(name) ?? fc.oneof(fc.string({ minLength: 1, maxLength: 24 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
        fc.constantFrom('fuzz', 'root', 'Fuzz Project', 'a-b_c.d', 'x'));
    case 'integer':
      return fc.oneof(fc.integer({ min: -3, max: 50 }), fc.integer({ min: -3, max: 50 }).map(String));
    case 'int32':
      return fc.oneof(fc.integer({ min: def.min ?? -(2 ** 31), max: def.max ?? 2 ** 31 - 1 }), fc.integer({ min: 0, max: 100_000 }).map(String));
    case 'boolean':
      return fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', '1', '0', 'yes', 'no', 't', 'f', 'on', 'off'));
    case 'date':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'datetime':
      return fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'hash':
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 });
  }
}

function scalarBad(kind: ScalarKind): fc.Arbitrary<Value> {
  switch (kind) {
    case 'integer':
    case 'int32':
      return fc.oneof(fc.constantFrom(...INT32_EDGES, ...INTEGER_EDGES), fc.constantFrom(...INTEGER_TEXT), fc.bigInt().map(String));
    case 'boolean':
      return fc.constantFrom(...BOOLEAN_BAD);
    case 'date':
    case 'datetime':
      return fc.constantFrom(...DATE_BAD);
    case 'hash':
      return fc.oneof(fc.string({ maxLength: 8 }), fc.array(smallScalar, { maxLength: 3 }));
    case 'string':
      return fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', ' ', '\t', 'null'));
  }
}

/** A value `def` accepts (its kind, its values list, its range; plausible text for well-known names). */
export function goodValue(def: ParamDef, name: string): fc.Arbitrary<Value> {
  if (def.kind !== 'array') return scalarGood(def.kind, def, name);
  const item = scalarGood(def.items ?? 'string', def);
  return def.commaSeparated ? fc.oneof(fc.array(item, { maxLength: 4 }), fc.array(item, { minLength: 1, maxLength: 4 }).map((l) => l.join(','))) : fc.array(item, { maxLength: 4 });
}

/** One value for `def`: good, edge, wrong type or nasty. */
export function paramValue(def: ParamDef, name = ''): fc.Arbitrary<Value> {
  const kind = def.kind === 'array' ? (def.items ?? 'string') : def.kind;
  const good = scalarGood(kind, def, name);
  const bad = scalarBad(kind);
  if (def.kind !== 'array') {
    return fc.oneof(
      { arbitrary: good, weight: 5 },
      { arbitrary: bad, weight: 3 },
      { arbitrary: wrongType, weight: 2 },
      { arbitrary: nastyString, weight: 2 },
    );
  }
  return fc.oneof(
    { arbitrary: fc.array(good, { maxLength: 4 }), weight: 4 },
    { arbitrary: fc.array(good, { minLength: 1, maxLength: 4 }).map((l) => l.map((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))).join(',')), weight: def.commaSeparated ? 3 : 1 },
    { arbitrary: fc.array(fc.oneof(bad, nastyString, fc.constant(null)), { minLength: 1, maxLength: 3 }), weight: 3 },
    { arbitrary: fc.oneof(good, bad), weight: 1 },
    { arbitrary: wrongType, weight: 2 },
    { arbitrary: fc.constantFrom(500, 5000).map((n) => Array.from({ length: n }, (_, i) => `t${i}`)), weight: 1 },
  );
}

/** An invalid value for `def` that the params layer must refuse (for known-bad requests). */
export function invalidValue(def: ParamDef): Value | undefined {
  const kind = def.kind === 'array' ? def.items : def.kind;
  if (def.values && def.values.length > 0) return def.kind === 'array' ? ['zz-no-such-value'] : 'zz-no-such-value';
  if (def.commaSeparated && kind !== 'int32') return undefined; // "a,b" / Ruby to_i accept anything
  switch (kind) {
    case 'int32':
      return def.kind === 'array' ? ['2147483648'] : '2147483648';
    case 'integer':
      return def.kind === 'array' ? ['abc'] : '12abc';
    case 'boolean':
      return 'maybe';
    case 'date':
    case 'datetime':
      return '2020-02-30';
    case 'hash':
      return 'not-a-hash';
    default:
      return undefined; // any string is a valid string
  }
}
