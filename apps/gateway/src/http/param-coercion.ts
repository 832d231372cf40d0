/**
 * Grape's parameter coercions, value by value (GitLab's API is built on Grape, whose coercers sit on dry-types'
 * `Params` coercions). Every coercer returns `INVALID` when Grape would answer "<param> is invalid".
 *
 * Shared rules (grape `Types::PrimitiveCoercer`, `Types::ArrayCoercer`; dry-types `Coercions::Params`):
 * - `null` stays `null` for every scalar type (Grape: `return nil if val.nil?`); for arrays it becomes `[]`
 *   (GitLab's `coerce_nil_params_to_array!` before-hook, `lib/api/helpers/common_helpers.rb`).
 * - `""` becomes `null` for scalar non-String types (Grape `treat_as_nil?`, grape#2045) and `[]` for arrays;
 *   strings are never trimmed.
 * - Arrays and hashes never coerce to String; strings never coerce to Hash.
 */

export const INVALID: unique symbol = Symbol('invalid');
export type Invalid = typeof INVALID;
export type Coerced<T> = T | null | Invalid;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** dry-types `Coercible::String` (`to_s`); arrays/hashes are rejected as Virtus did. */
export function coerceString(v: unknown): Coerced<string> {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return INVALID;
}

// dry-types Coercions::Params::TRUE_VALUES / FALSE_VALUES (exact set; matched on `input.to_s`, so `1`/`0` numbers work).
const TRUE_VALUES = new Set(['1', 'on', 'On', 'ON', 't', 'true', 'True', 'TRUE', 'T', 'y', 'yes', 'Yes', 'YES', 'Y']);
const FALSE_VALUES = new Set(['0', 'off', 'Off', 'OFF', 'f', 'false', 'False', 'FALSE', 'F', 'n', 'no', 'No', 'NO', 'N']);

/** dry-types `Params::Bool`: real booleans, and exactly the strings above (not fully case-insensitive: "tRUE" is invalid). */
export function coerceBoolean(v: unknown): Coerced<boolean> {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string' && typeof v !== 'number') return INVALID;
  const s = String(v);
  if (TRUE_VALUES.has(s)) return true;
  if (FALSE_VALUES.has(s)) return false;
  return INVALID;
}

// Ruby `Integer(str, 10)`: surrounding ASCII whitespace, a sign, digits with single underscores between them.
const RUBY_INTEGER = /^[\t\n\v\f\r ]*([+-]?\d+(?:_\d+)*)[\t\n\v\f\r ]*$/;

/**
 * dry-types `Params::Integer`: `"5"` → 5, `" 5 "` → 5, `"1_000"` → 1000; `"5a"`, `"1.5"`, `"0x10"`, booleans → invalid.
 * JSON numbers are truncated like Ruby's `Integer(1.5)` → 1.
 * Deviation: values outside JS's safe-integer range are invalid (Ruby would make a Bignum and fail later in the DB).
 */
export function coerceInteger(v: unknown): Coerced<number> {
  if (v === null || v === undefined || v === '') return null;
  let n: number;
  if (typeof v === 'number') n = Math.trunc(v);
  else if (typeof v === 'string') {
    const m = RUBY_INTEGER.exec(v);
    if (!m) return INVALID;
    n = Number(m[1]!.replace(/_/g, ''));
  } else return INVALID;
  return Number.isSafeInteger(n) ? n : INVALID;
}

/** The range of protobuf `int32` (and PostgreSQL `integer`). */
export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/**
 * `coerceInteger` for a param that travels in a protobuf `int32` field: beyond the range it is invalid
 * (Grape answers "<param> is invalid" for values its Integer type cannot hold; here the limit is the wire's).
 */
export function coerceInt32(v: unknown): Coerced<number> {
  const n = coerceInteger(v);
  return typeof n === 'number' && !isInt32(n) ? INVALID : n;
}

/** Within protobuf `int32` (PostgreSQL `integer`)? */
export const isInt32 = (n: number): boolean => n >= INT32_MIN && n <= INT32_MAX;

/** Ruby `String#to_i`: leading integer prefix, 0 when there is none (used by GitLab's CommaSeparatedToIntegerArray). */
export function rubyToI(s: string): number {
  const m = /^[\t\n\v\f\r ]*([+-]?\d+(?:_\d+)*)/.exec(s);
  const n = m ? Number(m[1]!.replace(/_/g, '')) : 0;
  return Number.isSafeInteger(n) ? n : 0;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

function validDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

/**
 * Grape `DateTime` (Ruby `DateTime.parse`). Accepts ISO 8601 dates and date-times (GitLab documents ISO 8601 for
 * `last_activity_after`, `updated_before`, ...); a missing zone means UTC, as in Ruby. Non-strings are invalid.
 * Deviation: Ruby's parser also accepts free-form dates ("Jan 5 2020"); those are rejected here.
 */
export function coerceDateTime(v: unknown): Coerced<Date> {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v !== 'string') return INVALID;
  const s = v.trim();
  const d = ISO_DATE.exec(s);
  if (d) return validDate(+d[1]!, +d[2]!, +d[3]!) ? new Date(`${d[0]}T00:00:00Z`) : INVALID;
  const m = ISO_DATE_TIME.exec(s);
  if (!m || !validDate(+m[1]!, +m[2]!, +m[3]!) || +m[4]! > 23 || +m[5]! > 59 || +(m[6] ?? 0) > 60) return INVALID;
  let zone = m[8] ?? 'Z';
  if (/^[+-]\d{2}$/.test(zone)) zone += ':00';
  else if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const ms = (m[7] ?? '').slice(0, 4).padEnd(4, '0');
  const t = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${ms === '0000' ? '' : ms}${zone.toUpperCase()}`);
  return Number.isNaN(t) ? INVALID : new Date(t);
}

/** Grape `Date` (Ruby `Date.parse`), restricted to `YYYY-MM-DD`; returns the normalized `YYYY-MM-DD` string. */
export function coerceDate(v: unknown): Coerced<string> {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v !== 'string') return INVALID;
  const d = ISO_DATE.exec(v.trim());
  return d && validDate(+d[1]!, +d[2]!, +d[3]!) ? d[0] : INVALID;
}

/** Grape `Hash`: a hash passes; any string (even `""`, Grape `reject?`) or array is invalid. */
export function coerceHash(v: unknown): Coerced<Record<string, unknown>> {
  if (v === null || v === undefined) return null;
  return isPlainObject(v) ? v : INVALID;
}

/**
 * Grape `Array[T]` (`Types::ArrayCoercer`): a real array whose elements all coerce, `""` → `[]`, `null` → `[]`.
 * A bare scalar is invalid (dry-types `to_ary`), `null` elements are invalid (Virtus rule).
 * Deviation: an `""` element of a non-String array is invalid here (Grape would keep `nil` inside the array).
 */
export function coerceArray<T>(v: unknown, item: (x: unknown) => Coerced<T>): T[] | Invalid {
  if (v === null || v === undefined || v === '') return [];
  if (!Array.isArray(v)) return INVALID;
  const out: T[] = [];
  for (const x of v) {
    if (x === null || x === undefined) return INVALID;
    const c = item(x);
    if (c === INVALID || c === null) return INVALID;
    out.push(c);
  }
  return out;
}

/** Ruby `str.split(',')`: trailing empty fields are dropped, inner/leading ones kept. */
function rubySplitComma(s: string): string[] {
  const parts = s.split(',');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * GitLab `API::Validations::Types::CommaSeparatedToArray.coerce` (used via `coerce_with` for `topics`, `tag_list`,
 * `topic`, `skip_users`, ...): a string is split on "," and each part stripped; an array's elements are each
 * stringified and split the same way (flattened); anything else (`null`, numbers, hashes) becomes `[]`.
 */
export function commaSeparatedToArray(v: unknown): string[] {
  const split = (s: string) => rubySplitComma(s).map((p) => p.trim());
  if (typeof v === 'string') return split(v);
  if (Array.isArray(v)) return v.flatMap((x) => split(x === null || x === undefined ? '' : String(x)));
  return [];
}

/** GitLab `CommaSeparatedToIntegerArray`: as above, then Ruby `to_i` on each part ("abc" → 0). */
export function commaSeparatedToIntegerArray(v: unknown): number[] {
  return commaSeparatedToArray(v).map(rubyToI);
}
