import { HttpError } from './errors';
import { ParamSchema } from './param-schema';
import type { InferParams, ParamFields } from './param-dsl';

export { p, Param, ArrayParam, type InferParams, type ParamDef, type ParamFields, type ParamKind, type ScalarKind } from './param-dsl';
export { ParamSchema, defineParams } from './param-schema';

/**
 * GitLab (Grape) style request parameters: merging, a small declarative DSL and its validators, Grape's error messages.
 *
 *   const schema = defineParams({
 *     name: p.string(),
 *     path: p.string(),
 *     visibility: p.enumOf(['private', 'internal', 'public'] as const),
 *     topics: p.arrayOf(p.string()).commaSeparated(),
 *     per_page: p.integer().default(20),
 *   }).atLeastOneOf('name', 'path');
 *   const r = parseParams(schema, mergeParams(req)); // { ok: true, value } | { ok: false, error: 'name, path are missing, ...' }
 *
 * Per param, validators run in Grape's order (presence → coercion → default → allow_blank → regexp → values → except)
 * and every failure is reported; group rules run afterwards in declaration order. Messages are collected, de-duplicated
 * and joined with ", " exactly like `Grape::Exceptions::ValidationErrors#full_messages`.
 * Output holds only declared keys that were sent or have a default (`declared(params, include_missing: false)`).
 * Present-but-`null` values stay `null` (Grape lets `requires` pass for an explicit null), except for arrays (→ `[]`).
 */

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Validates a merged params record. `error` is the Grape message rendered as `{"error": error}` with status 400. */
export function parseParams<F extends ParamFields>(schema: ParamSchema<F> | F, raw: unknown): ParseResult<InferParams<F>> {
  const s = schema instanceof ParamSchema ? schema : new ParamSchema(schema);
  const input = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const r = s.validate(input);
  if (r.ok) return r;
  return { ok: false, error: [...new Set(r.issues)].join(', ') };
}

/** `parseParams` that throws `HttpError.paramError` (400 `{"error": ...}`) on failure. */
export function requireParams<F extends ParamFields>(schema: ParamSchema<F> | F, raw: unknown): InferParams<F> {
  const r = parseParams(schema, raw);
  if (!r.ok) throw HttpError.paramError(r.error);
  return r.value;
}

/**
 * Grape's params: query string (qs "extended": `a[]=1` arrays, `a[b]=c` hashes), then the body (JSON object,
 * urlencoded or multipart fields) over it, then route params over both — Rack's `GET.merge(POST)` plus Grape's
 * routing args. A JSON body that is not an object (e.g. an array) is not merged, as in Grape.
 */
export function mergeParams(req: { query: unknown; body: unknown; params: Record<string, string> }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const src of [req.query, req.body, req.params]) {
    if (typeof src !== 'object' || src === null || Array.isArray(src) || Buffer.isBuffer(src)) continue;
    for (const [k, v] of Object.entries(src)) if (k !== '__proto__') out[k] = v;
  }
  return out;
}
