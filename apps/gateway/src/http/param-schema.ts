import { z } from 'zod';
import { INVALID } from './param-coercion';
import type { InferParams, ParamDef, ParamFields } from './param-dsl';

/**
 * A route's declared params compiled to zod. Per param, validators run in Grape's order
 * (presence → coercion → default → allow_blank → regexp → values → except) and every failure is reported;
 * group rules run afterwards in declaration order. Issue messages are Grape's full messages.
 */

type RuleKind = 'at_least_one_of' | 'mutually_exclusive' | 'exactly_one_of' | 'all_or_none_of';
interface Rule {
  kind: RuleKind;
  keys: readonly string[];
}

export class ParamSchema<F extends ParamFields> {
  private compiled?: z.ZodType<InferParams<F>>;
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
  /** The zod schema: parses a merged params record into the declared output, issues carry Grape's messages. */
  get zod(): z.ZodType<InferParams<F>> {
    return (this.compiled ??= compile(this.fields, this.rules));
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

function compile<F extends ParamFields>(fields: F, rules: readonly Rule[]): z.ZodType<InferParams<F>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, param] of Object.entries(fields)) {
    shape[name] = z
      .unknown()
      .optional()
      .transform((raw, ctx) => {
        const issues: string[] = [];
        const value = validateField(name, param.def, raw, issues);
        for (const message of issues) ctx.addIssue({ code: 'custom', message, path: [] });
        return value;
      });
  }
  // Group rules look at which declared keys are present after defaults (Grape runs them after the per-param validators).
  const groups = z.superRefine<Record<string, unknown>>(
    (value, ctx) => {
      const sent = new Set(Object.keys(value));
      for (const rule of rules) {
        const message = ruleMessage(rule, sent);
        if (message) ctx.addIssue({ code: 'custom', message, path: [] });
      }
    },
    { when: () => true },
  );
  return z.object(shape).check(groups) as unknown as z.ZodType<InferParams<F>>;
}

