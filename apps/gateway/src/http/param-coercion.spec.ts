import {
  INVALID,
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
  rubyToI,
} from './param-coercion';

describe('coerceBoolean (dry-types Params::Bool)', () => {
  it.each(['1', 'on', 'On', 'ON', 't', 'true', 'True', 'TRUE', 'T', 'y', 'yes', 'Yes', 'YES', 'Y', true, 1])(
    '%p → true',
    (v) => expect(coerceBoolean(v)).toBe(true),
  );
  it.each(['0', 'off', 'Off', 'OFF', 'f', 'false', 'False', 'FALSE', 'F', 'n', 'no', 'No', 'NO', 'N', false, 0])(
    '%p → false',
    (v) => expect(coerceBoolean(v)).toBe(false),
  );
  it.each(['tRUE', 'maybe', '2', ' true', 2, 1.5, [], {}, ['true']])('%p → invalid', (v) =>
    expect(coerceBoolean(v)).toBe(INVALID),
  );
  it('null and "" → null', () => {
    expect(coerceBoolean(null)).toBeNull();
    expect(coerceBoolean('')).toBeNull();
  });
});

describe('coerceInteger (Ruby Integer(str, 10))', () => {
  it.each([
    ['5', 5],
    ['-12', -12],
    ['+7', 7],
    [' 42 ', 42],
    ['007', 7],
    ['1_000', 1000],
    [5, 5],
    [1.9, 1],
    [-1.9, -1],
  ])('%p → %p', (v, n) => expect(coerceInteger(v)).toBe(n));
  it.each(['5a', '1.5', 'abc', '0x10', '1__0', '_1', '1_', '- 1', '1e3', true, [], ['5'], {}, '99999999999999999999'])(
    '%p → invalid',
    (v) => expect(coerceInteger(v)).toBe(INVALID),
  );
  it('"" and null → null (Grape treats "" as nil for non-String types)', () => {
    expect(coerceInteger('')).toBeNull();
    expect(coerceInteger(null)).toBeNull();
  });
});

describe('coerceInt32 (an integer bound for a protobuf int32 field)', () => {
  it.each([
    ['2147483647', 2147483647],
    [-2147483648, -2147483648],
    [' 7 ', 7],
    ['', null],
  ] as const)('%p → %p', (v, n) => expect(coerceInt32(v)).toBe(n));
  it.each(['2147483648', 2147483648, '-2147483649', 99999999999, '9007199254740993', 'abc', 1e308])('%p → invalid', (v) =>
    expect(coerceInt32(v)).toBe(INVALID),
  );
});

describe('coerceString', () => {
  it('keeps strings untouched (no trimming)', () => expect(coerceString('  a b ')).toBe('  a b '));
  it('keeps "" as ""', () => expect(coerceString('')).toBe(''));
  it('stringifies numbers and booleans', () => {
    expect(coerceString(12)).toBe('12');
    expect(coerceString(true)).toBe('true');
  });
  it('rejects arrays and hashes', () => {
    expect(coerceString(['a'])).toBe(INVALID);
    expect(coerceString({ a: 1 })).toBe(INVALID);
  });
});

describe('coerceDateTime / coerceDate', () => {
  it('parses ISO 8601 forms; no zone means UTC', () => {
    expect((coerceDateTime('2020-05-07T04:27:17.016Z') as Date).toISOString()).toBe('2020-05-07T04:27:17.016Z');
    expect((coerceDateTime('2020-05-07T04:27:17') as Date).toISOString()).toBe('2020-05-07T04:27:17.000Z');
    expect((coerceDateTime('2020-05-07T06:27+02:00') as Date).toISOString()).toBe('2020-05-07T04:27:00.000Z');
    expect((coerceDateTime('2020-05-07T06:27:00+0200') as Date).toISOString()).toBe('2020-05-07T04:27:00.000Z');
    expect((coerceDateTime('2020-05-07 04:27:17') as Date).toISOString()).toBe('2020-05-07T04:27:17.000Z');
    expect((coerceDateTime('2020-05-07') as Date).toISOString()).toBe('2020-05-07T00:00:00.000Z');
  });
  it.each(['yesterday', '2020-02-30', '2020-13-01', '2020-01-01T25:00:00Z', 1588825637])('datetime %p → invalid', (v) =>
    expect(coerceDateTime(v)).toBe(INVALID),
  );
  it('dates are YYYY-MM-DD', () => {
    expect(coerceDate('2024-02-29')).toBe('2024-02-29');
    expect(coerceDate('2023-02-29')).toBe(INVALID);
    expect(coerceDate('2024-02-29T00:00:00Z')).toBe(INVALID);
    expect(coerceDate('')).toBeNull();
  });
});

describe('coerceHash', () => {
  it('accepts objects only', () => {
    expect(coerceHash({ a: '1' })).toEqual({ a: '1' });
    expect(coerceHash('')).toBe(INVALID);
    expect(coerceHash('a')).toBe(INVALID);
    expect(coerceHash(['a'])).toBe(INVALID);
    expect(coerceHash(null)).toBeNull();
  });
});

describe('coerceArray (Grape Array[T])', () => {
  it('coerces each element', () => {
    expect(coerceArray(['1', 2], coerceInteger)).toEqual([1, 2]);
    expect(coerceArray(['a', 1], coerceString)).toEqual(['a', '1']);
  });
  it('"" and null → [] (dry-types to_ary / GitLab coerce_nil_params_to_array!)', () => {
    expect(coerceArray('', coerceInteger)).toEqual([]);
    expect(coerceArray(null, coerceInteger)).toEqual([]);
  });
  it('rejects scalars, hashes, bad and nil elements', () => {
    expect(coerceArray('a', coerceString)).toBe(INVALID);
    expect(coerceArray({ 0: 'a' }, coerceString)).toBe(INVALID);
    expect(coerceArray(['1', 'x'], coerceInteger)).toBe(INVALID);
    expect(coerceArray(['a', null], coerceString)).toBe(INVALID);
    expect(coerceArray([['a']], coerceString)).toBe(INVALID);
  });
});

describe('GitLab CommaSeparatedToArray / CommaSeparatedToIntegerArray', () => {
  it('splits and strips like Ruby', () => {
    expect(commaSeparatedToArray('a, b ,c')).toEqual(['a', 'b', 'c']);
    expect(commaSeparatedToArray('a,,b,')).toEqual(['a', '', 'b']);
    expect(commaSeparatedToArray(',a')).toEqual(['', 'a']);
    expect(commaSeparatedToArray('')).toEqual([]);
    expect(commaSeparatedToArray('solo')).toEqual(['solo']);
  });
  it('flattens arrays element by element', () => expect(commaSeparatedToArray(['a,b', 'c', 3])).toEqual(['a', 'b', 'c', '3']));
  it('anything else → []', () => {
    expect(commaSeparatedToArray(null)).toEqual([]);
    expect(commaSeparatedToArray(5)).toEqual([]);
    expect(commaSeparatedToArray({ a: 'b' })).toEqual([]);
  });
  it('integers use Ruby to_i (never fails)', () => {
    expect(commaSeparatedToIntegerArray('1, 2,x,3y')).toEqual([1, 2, 0, 3]);
    expect(rubyToI('  -4_0abc')).toBe(-40);
    expect(rubyToI('abc')).toBe(0);
  });
});
