import { INVALID } from './param-coercion';
import type { InferParams, ParamDef, ParamFields } from './param-dsl';

/**
 * A route's declared params and their validation. Per param, validators run in Grape's order
 * (presence → coercion → default → allow_blank → regexp → values → except) and every failure is reported;
 * group rules run afterwards in declaration order. Issue messages are Grape's full messages.
 *
 * Every validator is ours (Grape's semantics), so the fields are checked by one loop over them. They were a zod object
 * of `z.unknown().optional().transform(validateField)` fields, which ran the same code inside zod's per-field pipes: for
 * `GET /projects`' 30 params that was ~10 KB of garbage a request (a tenth of the gateway's allocation under the offset
 * listing) and 3.0–3.4 µs a parse in-process (bench/README.md, "Request params checked by one loop").
 */

/** The outcome of `ParamSchema.validate`: the declared output, or Grape's messages in order (not yet de-duplicated). */
export type Validation<T> = { ok: true; value: T } | { ok: false; issues: string[] };

type RuleKind = 'at_least_one_of' | 'mutually_exclusive' | 'exactly_one_of' | 'all_or_none_of';
interface Rule {
  kind: RuleKind;
  keys: readonly string[];
}

export class ParamSchema<F extends ParamFields> {
  private entries?: readonly (readonly [string, ParamDef])[];
  constructor(
    readonly fields: F,
    readonly rules: readonly Rule[] = [],
  ) {}
  private rule(kind: RuleKind, keys: (keyof F & string)[]): ParamSchema<F> {
    return new ParamSchema(this.fields, [...this.rules, { kind, keys }]);
  }
  /** "a, b are missing, at least one parameter must be provided" */
  atLeastOneOf(...keys: (keyof F & string)[]) {
    return this.rule('at_least_one_of', keys);
  }
  /** "a, b are mutually exclusive" (lists only the keys that were sent) */
  mutuallyExclusive(...keys: (keyof F & string)[]) {
    return this.rule('mutually_exclusive', keys);
  }
  /** none sent → "a, b are missing, exactly one parameter must be provided"; several → mutually exclusive message */
  exactlyOneOf(...keys: (keyof F & string)[]) {
    return this.rule('exactly_one_of', keys);
  }
  /** "a, b provide all or none of parameters" */
  allOrNoneOf(...keys: (keyof F & string)[]) {
    return this.rule('all_or_none_of', keys);
  }
  extend<G extends ParamFields>(more: G): ParamSchema<Omit<F, keyof G> & G> {
    return new ParamSchema({ ...this.fields, ...more } as Omit<F, keyof G> & G, this.rules);
  }
  /**
   * Checks a merged params record: the output holds the declared keys that were sent or have a default, in declaration
   * order (undeclared keys are dropped); every field's validators run, then every group rule over the output's keys.
   */
  validate(input: Readonly<Record<string, unknown>>): Validation<InferParams<F>> {
    const entries = (this.entries ??= Object.entries(this.fields).map(([name, param]) => [name, param.def] as const));
    const out: Record<string, unknown> = {};
    const issues: string[] = [];
    for (const [name, def] of entries) {
      const value = validateField(name, def, Object.hasOwn(input, name) ? input[name] : undefined, issues);
      if (value !== undefined) out[name] = value;
    }
    if (this.rules.length) {
      const sent = new Set(Object.keys(out));
      for (const rule of this.rules) {
        const message = ruleMessage(rule, sent);
        if (message) issues.push(message);
      }
    }
    return issues.length ? { ok: false, issues } : { ok: true, value: out as InferParams<F> };
  }
}

export const defineParams = <F extends ParamFields>(fields: F) => new ParamSchema(fields);

const isBlank = (v: unknown) =>
  v === null || v === undefined || (typeof v === 'string' && /^\s*$/.test(v)) || (Array.isArray(v) && v.length === 0);
const wrap = (v: unknown): unknown[] => (v === null || v === undefined ? [null] : Array.isArray(v) ? v : [v]);

/** All of one param's validators; pushes Grape messages, returns the output value (undefined = leave key out). */
function validateField(name: string, d: ParamDef, raw: unknown, issues: string[]): unknown {
  const present = raw !== undefined;
  if (!present && !d.required) return d.hasDefault ? d.defaultValue : undefined;
  if (!present) issues.push(`${name} is missing`);
  const coerced = present ? d.coerce(raw) : null;
  const ok = coerced !== INVALID;
  if (!ok) issues.push(`${name} is invalid`);
  let value = ok ? coerced : raw; // later validators see the uncoerced value when coercion failed, like Grape
  if (ok && value === null && d.hasDefault) value = d.defaultValue;
  if (d.notBlank && value !== false && isBlank(value)) issues.push(`${name} is empty`);
  if (d.regexp && present && !wrap(value).every((x) => x === null || d.regexp!.test(String(x)))) {
    issues.push(`${name} is invalid`);
  }
  if (d.values && !(value === null && !d.required) && !wrap(value).every((x) => d.values!.includes(x))) {
    issues.push(`${name} does not have a valid value`);
  }
  if (d.except && present && wrap(value).some((x) => d.except!.includes(x))) {
    issues.push(`${name} has a value not allowed`);
  }
  return present ? value : undefined; // a missing key stays absent, so group rules see it as not sent
}

function ruleMessage(rule: Rule, sent: Set<string>): string | undefined {
  const given = rule.keys.filter((k) => sent.has(k));
  const all = rule.keys.join(', ');
  switch (rule.kind) {
    case 'at_least_one_of':
      return given.length === 0 ? `${all} are missing, at least one parameter must be provided` : undefined;
    case 'mutually_exclusive':
      return given.length > 1 ? `${given.join(', ')} are mutually exclusive` : undefined;
    case 'exactly_one_of':
      if (given.length === 0) return `${all} are missing, exactly one parameter must be provided`;
      return given.length > 1 ? `${given.join(', ')} are mutually exclusive` : undefined;
    case 'all_or_none_of':
      return given.length > 0 && given.length < rule.keys.length ? `${all} provide all or none of parameters` : undefined;
  }
}
