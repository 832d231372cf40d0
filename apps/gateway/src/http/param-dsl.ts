import {
  coerceArray,
  coerceBoolean,
  coerceDate,
  coerceDateTime,
  coerceHash,
  coerceInt32,
  coerceInteger,
  coerceString,
  commaSeparatedToArray,
  commaSeparatedToIntegerArray,
  INT32_MAX,
  INT32_MIN,
  INVALID,
  isInt32,
  type Invalid,
} from './param-coercion';

/** The param declaration DSL (`p.string().required()` ...): each param is data (`ParamDef`) plus its output type. */

type Coercer = (v: unknown) => unknown;

/** What a scalar param holds; `int32` is an integer that travels in a protobuf `int32` field. */
export type ScalarKind = 'string' | 'integer' | 'int32' | 'boolean' | 'datetime' | 'date' | 'hash';
/** A param's type, for whatever reads route tables (the route fuzzer, docs). Arrays name their element in `items`. */
export type ParamKind = ScalarKind | 'array';

export interface ParamDef {
  readonly kind: ParamKind;
  /** Arrays: the kind of every element. */
  readonly items?: ScalarKind;
  /** Arrays: a comma-separated string is accepted too (`topics=a,b`). */
  readonly commaSeparated?: boolean;
  /** Integers: the accepted range, inclusive. */
  readonly min?: number;
  readonly max?: number;
  readonly coerce: Coercer;
  readonly required: boolean;
  readonly hasDefault: boolean;
  readonly defaultValue?: unknown;
  readonly values?: readonly unknown[];
  readonly except?: readonly unknown[];
  readonly notBlank: boolean;
  readonly regexp?: RegExp;
}

/** `T` value type; `R` key always present in the output (required or defaulted); `N` value may be `null`; `V` has a values list. */
export class Param<T, R extends boolean = false, N extends boolean = true, V extends boolean = false> {
  declare readonly _t: T;
  declare readonly _n: N;
  declare readonly _r: R;
  constructor(readonly def: ParamDef) {}
  private with<P>(patch: Partial<ParamDef>): P {
    return new Param({ ...this.def, ...patch }) as P;
  }
  /** Grape `requires`: only the key must be present ("name is missing"); an empty string passes. */
  required(): Param<T, true, V extends true ? false : N, V> {
    return this.with({ required: true });
  }
  /** Grape `optional` (the default). */
  optional(): Param<T, false, N, V> {
    return this.with({ required: false });
  }
  /** Grape `default:`; applied when the value is missing or coerces to nil (e.g. `""` for an Integer). */
  default(value: T): Param<T, true, false, V> {
    return this.with({ hasDefault: true, defaultValue: value });
  }
  /** Grape `values:` → "<name> does not have a valid value" (checked per element for arrays). */
  values<const L extends T extends readonly (infer E)[] ? E : T>(
    list: readonly L[],
  ): Param<T extends readonly unknown[] ? L[] : L, R, R extends true ? false : N, true> {
    return this.with({ values: list });
  }
  /** Grape `except_values:` → "<name> has a value not allowed". */
  except(list: readonly unknown[]): Param<T, R, N, V> {
    return this.with({ except: list });
  }
  /** Grape `allow_blank: false` → "<name> is empty" for nil, "", whitespace-only strings and []. */
  notBlank(): Param<T, R, N, V> {
    return this.with({ notBlank: true });
  }
  /** Grape `regexp:` → "<name> is invalid" unless every (non-nil) value matches. */
  regexp(re: RegExp): Param<T, R, N, V> {
    return this.with({ regexp: re });
  }
}

const base = { required: false, hasDefault: false, notBlank: false } as const;
const scalar = <T>(kind: ScalarKind, coerce: Coercer, extra: Partial<ParamDef> = {}) => new Param<T>({ ...base, ...extra, kind, coerce });

const COMMA_SEPARATED: Partial<Record<ScalarKind, Coercer>> = {
  string: commaSeparatedToArray,
  integer: commaSeparatedToIntegerArray,
  int32: (v) => {
    const list = commaSeparatedToIntegerArray(v);
    return list.every(isInt32) ? list : INVALID;
  },
};

/** An array param; `.commaSeparated()` switches to GitLab's `coerce_with: CommaSeparatedTo(Integer)Array`. */
export class ArrayParam<T, R extends boolean = false, V extends boolean = false> extends Param<T[], R, false, V> {
  /** "a,b" → ["a","b"] (parts trimmed), arrays flattened the same way, any other scalar → []. */
  commaSeparated(): ArrayParam<T, R, V> {
    const split = this.def.items && COMMA_SEPARATED[this.def.items];
    if (!split) throw new Error('commaSeparated() needs p.arrayOf(p.string()), p.arrayOf(p.integer()) or p.arrayOf(p.int32())');
    return new ArrayParam({ ...this.def, coerce: split, commaSeparated: true });
  }
}

export const p = {
  string: () => scalar<string>('string', coerceString),
  /** An integer within JS's safe range (protobuf `int64` fields, ids). */
  integer: () => scalar<number>('integer', coerceInteger),
  /** An integer that travels in a protobuf `int32` field: beyond ±2^31 it is "<param> is invalid", never an encoding failure. */
  int32: () => scalar<number>('int32', coerceInt32, { min: INT32_MIN, max: INT32_MAX }),
  boolean: () => scalar<boolean>('boolean', coerceBoolean),
  /** ISO 8601 date or date-time → `Date` (UTC when no zone). */
  datetime: () => scalar<Date>('datetime', coerceDateTime),
  /** `YYYY-MM-DD` → the same string. */
  date: () => scalar<string>('date', coerceDate),
  /** A free-form JSON object / bracketed form hash (`a[b]=c`). */
  hash: () => scalar<Record<string, unknown>>('hash', coerceHash),
  /** Grape `type: String, values: [...]`. */
  enumOf: <const L extends string>(list: readonly L[]) => scalar<string>('string', coerceString).values(list),
  /** Grape `Array[T]`; the item's `values` (e.g. `p.arrayOf(p.enumOf([...]))`) apply to each element. */
  arrayOf: <T, V extends boolean>(item: Param<T, boolean, boolean, V>): ArrayParam<T, false, V> => {
    const items = item.def.kind;
    if (items === 'array') throw new Error('p.arrayOf(p.arrayOf(...)) is not supported');
    const coerce = (v: unknown): unknown => coerceArray(v, item.def.coerce as (x: unknown) => T | null | Invalid);
    return new ArrayParam<T, false, V>({ ...base, kind: 'array', items, coerce, values: item.def.values, min: item.def.min, max: item.def.max });
  },
};

export type ParamFields = Record<string, Param<any, boolean, boolean, boolean>>;
type ValueOf<P> = P extends Param<infer T, boolean, infer N, boolean> ? (N extends true ? T | null : T) : never;
type PresentKeys<F> = { [K in keyof F]: F[K] extends Param<any, true, boolean, boolean> ? K : never }[keyof F];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type InferParams<F extends ParamFields> = Simplify<
  { [K in PresentKeys<F>]: ValueOf<F[K]> } & { [K in Exclude<keyof F, PresentKeys<F>>]?: ValueOf<F[K]> }
>;

