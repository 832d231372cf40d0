import { HttpError } from './errors';
import { defineParams, mergeParams, p, parseParams, requireParams } from './params';

const err = (r: { ok: boolean; error?: string }) => (r.ok ? undefined : r.error);

describe('mergeParams', () => {
  it('merges query < body < route params (Grape precedence)', () => {
    const merged = mergeParams({
      query: { id: 'q', a: 'from-query', q: '1' },
      body: { id: 'b', a: 'from-body', b: '2' },
      params: { id: '42' },
    });
    expect(merged).toEqual({ id: '42', a: 'from-body', q: '1', b: '2' });
  });
  it('keeps qs structures (arrays, hashes) as they are', () => {
    const merged = mergeParams({ query: { topics: ['a', 'b'], h: { k: 'v' } }, body: undefined, params: {} });
    expect(merged).toEqual({ topics: ['a', 'b'], h: { k: 'v' } });
  });
  it('ignores non-object bodies (JSON arrays, strings, buffers)', () => {
    expect(mergeParams({ query: { a: '1' }, body: [1, 2], params: {} })).toEqual({ a: '1' });
    expect(mergeParams({ query: { a: '1' }, body: 'text', params: {} })).toEqual({ a: '1' });
    expect(mergeParams({ query: { a: '1' }, body: Buffer.from('x'), params: {} })).toEqual({ a: '1' });
  });
  it('drops __proto__ keys', () => {
    const body = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as unknown;
    const merged = mergeParams({ query: {}, body, params: {} });
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged).toEqual({ x: 1 });
  });
});

describe('parseParams: presence and types', () => {
  const schema = defineParams({
    name: p.string().required(),
    path: p.string().required(),
    namespace_id: p.integer(),
    archived: p.boolean(),
  });

  it('returns only declared keys that were sent (declared(include_missing: false))', () => {
    const r = parseParams(schema, { name: 'n', path: 'p', unknown: 'x', namespace_id: '7' });
    expect(r).toEqual({ ok: true, value: { name: 'n', path: 'p', namespace_id: 7 } });
  });
  it('joins missing params with ", " in declaration order', () => {
    expect(err(parseParams(schema, {}))).toBe('name is missing, path is missing');
  });
  it('requires only key presence: "" and null pass', () => {
    expect(parseParams(schema, { name: '', path: null })).toEqual({ ok: true, value: { name: '', path: null } });
  });
  it('does not trim strings', () => {
    expect(parseParams(schema, { name: ' a ', path: 'b' })).toEqual({ ok: true, value: { name: ' a ', path: 'b' } });
  });
  it('reports coercion failures as "is invalid"', () => {
    expect(err(parseParams(schema, { name: 'n', path: 'p', namespace_id: '5a', archived: 'maybe' }))).toBe(
      'namespace_id is invalid, archived is invalid',
    );
    expect(err(parseParams(schema, { name: 'n', path: 'p', namespace_id: '1.5' }))).toBe('namespace_id is invalid');
    expect(err(parseParams(schema, { name: ['a'], path: 'p' }))).toBe('name is invalid');
  });
  it('mixes missing and invalid', () => {
    expect(err(parseParams(schema, { path: 'p', archived: 'x' }))).toBe('name is missing, archived is invalid');
  });
  it('treats "" as nil for integers and booleans', () => {
    expect(parseParams(schema, { name: 'n', path: 'p', namespace_id: '', archived: '' })).toEqual({
      ok: true,
      value: { name: 'n', path: 'p', namespace_id: null, archived: null },
    });
  });
  it('coerces the boolean spellings', () => {
    for (const [raw, v] of [['true', true], ['yes', true], ['1', true], ['on', true], ['t', true], ['off', false], ['0', false], [false, false]] as const) {
      expect(parseParams(schema, { name: 'n', path: 'p', archived: raw })).toEqual({ ok: true, value: { name: 'n', path: 'p', archived: v } });
    }
  });
  it('accepts a plain fields object and treats a non-object input as empty', () => {
    expect(err(parseParams({ id: p.integer().required() }, null))).toBe('id is missing');
    expect(parseParams({ id: p.integer().required() }, { id: '3' })).toEqual({ ok: true, value: { id: 3 } });
  });
});

describe('parseParams: values, defaults, except, blank, regexp', () => {
  const schema = defineParams({
    visibility: p.enumOf(['private', 'internal', 'public']),
    order_by: p.enumOf(['id', 'name']).default('id'),
    access_level: p.integer().values([10, 20, 30, 40, 50]).required(),
    per_page: p.integer().default(20).except([0]),
    tag: p.string().notBlank(),
    ref: p.string().regexp(/^[a-z]+$/),
  });
  const ok = { access_level: 30 };

  it('"does not have a valid value" for values outside the list', () => {
    expect(err(parseParams(schema, { ...ok, visibility: 'secret' }))).toBe('visibility does not have a valid value');
    expect(err(parseParams(schema, { ...ok, visibility: '' }))).toBe('visibility does not have a valid value');
    expect(err(parseParams(schema, { access_level: '15' }))).toBe('access_level does not have a valid value');
  });
  it('optional enum: null is allowed, missing is left out', () => {
    expect(parseParams(schema, { ...ok, visibility: null })).toEqual({
      ok: true,
      value: { visibility: null, order_by: 'id', access_level: 30, per_page: 20 },
    });
  });
  it('required + values: missing gives both messages (Grape runs presence and values)', () => {
    expect(err(parseParams(schema, {}))).toBe('access_level is missing, access_level does not have a valid value');
  });
  it('coercion failure is followed by the values check on the raw value (grape values_validator_spec)', () => {
    expect(err(parseParams(schema, { access_level: 'abc' }))).toBe(
      'access_level is invalid, access_level does not have a valid value',
    );
  });
  it('fills defaults for missing, null and "" (Integer) values', () => {
    expect(parseParams(schema, { access_level: '40', per_page: '' })).toEqual({
      ok: true,
      value: { order_by: 'id', access_level: 40, per_page: 20 },
    });
    expect(parseParams(schema, { access_level: 40, order_by: null })).toMatchObject({ ok: true, value: { order_by: 'id' } });
  });
  it('"has a value not allowed" for except values', () => {
    expect(err(parseParams(schema, { ...ok, per_page: '0' }))).toBe('per_page has a value not allowed');
  });
  it('"is empty" for notBlank', () => {
    expect(err(parseParams(schema, { ...ok, tag: '  ' }))).toBe('tag is empty');
    expect(err(parseParams(schema, { ...ok, tag: null }))).toBe('tag is empty');
    expect(parseParams(schema, { ...ok, tag: 'v1' })).toMatchObject({ ok: true, value: { tag: 'v1' } });
  });
  it('"is invalid" for regexp mismatches', () => {
    expect(err(parseParams(schema, { ...ok, ref: 'Main' }))).toBe('ref is invalid');
    expect(parseParams(schema, { ...ok, ref: 'main' })).toMatchObject({ ok: true, value: { ref: 'main' } });
  });
  it('de-duplicates identical messages', () => {
    expect(err(parseParams(schema, { ...ok, ref: ['A'] }))).toBe('ref is invalid');
  });
});

describe('parseParams: arrays', () => {
  const schema = defineParams({
    ids: p.arrayOf(p.integer()),
    names: p.arrayOf(p.string()),
    scopes: p.arrayOf(p.enumOf(['api', 'read_api'])).required(),
    topics: p.arrayOf(p.string()).commaSeparated(),
    skip_users: p.arrayOf(p.integer()).commaSeparated(),
  });
  const base = { scopes: ['api'] };

  it('accepts real arrays (qs a[]=1&a[]=2, JSON) and coerces elements', () => {
    expect(parseParams(schema, { ...base, ids: ['1', 2], names: ['a'] })).toEqual({
      ok: true,
      value: { ids: [1, 2], names: ['a'], scopes: ['api'] },
    });
  });
  it('rejects a bare scalar and bad elements', () => {
    expect(err(parseParams(schema, { ...base, ids: '1' }))).toBe('ids is invalid');
    expect(err(parseParams(schema, { ...base, ids: ['1', 'x'] }))).toBe('ids is invalid');
  });
  it('null and "" become []', () => {
    expect(parseParams(schema, { ...base, ids: null, names: '' })).toMatchObject({ ok: true, value: { ids: [], names: [] } });
  });
  it('checks values per element', () => {
    expect(err(parseParams(schema, { scopes: ['api', 'sudo'] }))).toBe('scopes does not have a valid value');
    expect(err(parseParams(schema, {}))).toBe('scopes is missing, scopes does not have a valid value');
  });
  it('comma-separated params accept "a,b", arrays and scalars', () => {
    expect(parseParams(schema, { ...base, topics: 'ruby, go', skip_users: '1,2' })).toMatchObject({
      ok: true,
      value: { topics: ['ruby', 'go'], skip_users: [1, 2] },
    });
    expect(parseParams(schema, { ...base, topics: ['a,b', 'c'], skip_users: ['3'] })).toMatchObject({
      ok: true,
      value: { topics: ['a', 'b', 'c'], skip_users: [3] },
    });
    expect(parseParams(schema, { ...base, topics: 'solo' })).toMatchObject({ ok: true, value: { topics: ['solo'] } });
  });
  it('commaSeparated() is only for string/integer arrays', () => {
    expect(() => p.arrayOf(p.boolean()).commaSeparated()).toThrow(/commaSeparated/);
  });
});

describe('parseParams: datetime, date, hash', () => {
  const schema = defineParams({ after: p.datetime(), expires_at: p.date(), attrs: p.hash() });
  it('coerces', () => {
    const r = parseParams(schema, { after: '2024-01-02T03:04:05Z', expires_at: '2024-12-31', attrs: { a: '1' } });
    expect(r.ok && r.value.after?.toISOString()).toBe('2024-01-02T03:04:05.000Z');
    expect(r).toMatchObject({ ok: true, value: { expires_at: '2024-12-31', attrs: { a: '1' } } });
  });
  it('rejects', () => {
    expect(err(parseParams(schema, { after: 'soon', expires_at: '31/12/2024', attrs: 'x' }))).toBe(
      'after is invalid, expires_at is invalid, attrs is invalid',
    );
  });
});

describe('parseParams: group rules', () => {
  const create = defineParams({ name: p.string(), path: p.string(), import_url: p.string(), template_name: p.string() })
    .atLeastOneOf('name', 'path')
    .mutuallyExclusive('import_url', 'template_name');

  it('at_least_one_of', () => {
    expect(err(parseParams(create, {}))).toBe('name, path are missing, at least one parameter must be provided');
    expect(parseParams(create, { path: 'p' }).ok).toBe(true);
    expect(parseParams(create, { name: '' }).ok).toBe(true); // presence of the key is enough
  });
  it('mutually_exclusive lists the keys that were sent', () => {
    expect(err(parseParams(create, { name: 'n', import_url: 'u', template_name: 't' }))).toBe(
      'import_url, template_name are mutually exclusive',
    );
  });
  it('group errors come after param errors, in declaration order', () => {
    const s = defineParams({ id: p.integer().required(), a: p.string(), b: p.string() }).atLeastOneOf('a', 'b');
    expect(err(parseParams(s, { id: 'x' }))).toBe('id is invalid, a, b are missing, at least one parameter must be provided');
    expect(err(parseParams(s, {}))).toBe('id is missing, a, b are missing, at least one parameter must be provided');
  });
  it('exactly_one_of and all_or_none_of', () => {
    const s = defineParams({ a: p.string(), b: p.string(), c: p.string(), d: p.string() }).exactlyOneOf('a', 'b').allOrNoneOf('c', 'd');
    expect(err(parseParams(s, {}))).toBe('a, b are missing, exactly one parameter must be provided');
    expect(err(parseParams(s, { a: '1', b: '2' }))).toBe('a, b are mutually exclusive');
    expect(err(parseParams(s, { a: '1', c: 'x' }))).toBe('c, d provide all or none of parameters');
    expect(parseParams(s, { b: '1', c: 'x', d: 'y' }).ok).toBe(true);
  });
  it('an invalid param still counts as sent for group rules', () => {
    const s = defineParams({ a: p.integer(), b: p.integer() }).atLeastOneOf('a', 'b');
    expect(err(parseParams(s, { a: 'x' }))).toBe('a is invalid');
  });
});

describe('ParamSchema composition and validation', () => {
  it('extend() adds fields and keeps rules', () => {
    const s = defineParams({ a: p.string() }).atLeastOneOf('a').extend({ page: p.integer().default(1) });
    expect(parseParams(s, { a: 'x' })).toEqual({ ok: true, value: { a: 'x', page: 1 } });
    expect(err(parseParams(s, {}))).toBe('a are missing, at least one parameter must be provided');
  });
  it('validate() answers the output or every message in order, undeclared and inherited keys left out', () => {
    const s = defineParams({ n: p.integer().required(), constructor: p.string(), toString: p.string().default('d') }).atLeastOneOf('n', 'constructor');
    expect(s.validate({ n: '4', extra: 'x' })).toEqual({ ok: true, value: { n: 4, toString: 'd' } });
    expect(Object.keys((s.validate({ n: '4' }) as { value: object }).value)).toEqual(['n', 'toString']);
    expect(s.validate({})).toEqual({ ok: false, issues: ['n is missing', 'n, constructor are missing, at least one parameter must be provided'] });
    expect(s.validate({ n: 'x', constructor: '' })).toEqual({ ok: false, issues: ['n is invalid'] });
  });
  it('requireParams throws a Grape 400', () => {
    expect(() => requireParams({ n: p.integer().required() }, {})).toThrow(HttpError);
    try {
      requireParams({ n: p.integer().required() }, {});
    } catch (e) {
      expect((e as HttpError).status).toBe(400);
      expect((e as HttpError).body).toEqual({ error: 'n is missing' });
    }
  });
  it('infers output types', () => {
    const s = defineParams({
      id: p.string().required(),
      visibility: p.enumOf(['private', 'public']).required(),
      order_by: p.enumOf(['id', 'name']).default('id'),
      ids: p.arrayOf(p.integer()),
      n: p.integer(),
    });
    const r = parseParams(s, { id: '1', visibility: 'public' });
    if (!r.ok) throw new Error(r.error);
    const id: string | null = r.value.id;
    const visibility: 'private' | 'public' = r.value.visibility;
    const orderBy: 'id' | 'name' = r.value.order_by;
    const ids: number[] | undefined = r.value.ids;
    const n: number | null | undefined = r.value.n;
    expect([id, visibility, orderBy, ids, n]).toEqual(['1', 'public', 'id', undefined, undefined]);
  });
});

describe('p.int32() and what a ParamDef tells about itself', () => {
  const schema = defineParams({
    build_timeout: p.int32(),
    namespace_id: p.integer(),
    ids: p.arrayOf(p.int32()).commaSeparated(),
    scopes: p.arrayOf(p.enumOf(['api', 'read_api'])),
  });

  it('answers an int32 beyond its range with Grape\'s "is invalid", within it with the number', () => {
    expect(parseParams(schema, { build_timeout: '99999999999' })).toEqual({ ok: false, error: 'build_timeout is invalid' });
    expect(parseParams(schema, { build_timeout: 2147483648 })).toEqual({ ok: false, error: 'build_timeout is invalid' });
    expect(parseParams(schema, { build_timeout: '-2147483648', namespace_id: '99999999999' })).toEqual({
      ok: true,
      value: { build_timeout: -2147483648, namespace_id: 99999999999 },
    });
    expect(parseParams(schema, { ids: '1,2147483648' })).toEqual({ ok: false, error: 'ids is invalid' });
    expect(parseParams(schema, { ids: '1, 2' })).toEqual({ ok: true, value: { ids: [1, 2] } });
  });

  it('exposes kind, element kind, range and values for tools reading route tables', () => {
    const f = schema.fields;
    expect(f.build_timeout.def).toMatchObject({ kind: 'int32', min: -2147483648, max: 2147483647 });
    expect(f.namespace_id.def.kind).toBe('integer');
    expect(f.ids.def).toMatchObject({ kind: 'array', items: 'int32', commaSeparated: true });
    expect(f.scopes.def).toMatchObject({ kind: 'array', items: 'string', values: ['api', 'read_api'] });
    expect([p.string(), p.boolean(), p.datetime(), p.date(), p.hash()].map((x) => x.def.kind)).toEqual(['string', 'boolean', 'datetime', 'date', 'hash']);
  });

  it('refuses arrays of arrays and comma-separated arrays of other kinds', () => {
    expect(() => p.arrayOf(p.arrayOf(p.string()))).toThrow('not supported');
    expect(() => p.arrayOf(p.boolean()).commaSeparated()).toThrow('commaSeparated() needs');
  });
});
