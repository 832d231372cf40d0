import { hasMalformedCredentials, hasMalformedParam, isMalformedPercentEncoding, isMalformedString, utf8FromLatin1 } from './malformed-strings';

describe('isMalformedString', () => {
  it.each(['', 'plain', 'café', '😀', '\u0001\u001f control characters are fine', '\ufffd', '\ud83d\ude00'])('%p is fine', (s) =>
    expect(isMalformedString(s)).toBe(false),
  );
  it.each(['a\0b', '\0', '\ud800', 'a\udc00b', '\ude00\ud83d'])('%p is malformed (NUL or lone surrogate)', (s) =>
    expect(isMalformedString(s)).toBe(true),
  );
});

describe('isMalformedPercentEncoding (Rack::Utils.unescape raising, or a NUL once decoded)', () => {
  it.each(['/api/v4/projects/root%2Fdemo', 'search=caf%C3%A9&topic[]=a', 'a=%20+b', '', 'per_page=20', '%F0%9F%98%80'])('%p is fine', (s) =>
    expect(isMalformedPercentEncoding(s)).toBe(false),
  );
  it.each(['/api/v4/projects/%E0%A4%A', 'search=100%', 'a=%zz', 'a=%C0%AF', 'a=%ED%A0%80', 'a=%FF', 'a=%00', 'a\0b', 'q=%E0%A4%A&x=1'])(
    '%p is malformed',
    (s) => expect(isMalformedPercentEncoding(s)).toBe(true),
  );
});

describe('hasMalformedParam', () => {
  it('walks values and keys of hashes and arrays', () => {
    expect(hasMalformedParam({ name: 'ok', topics: ['a', 'b'], h: { k: [1, true, null] } })).toBe(false);
    expect(hasMalformedParam({ topics: ['a', 'b\0'] })).toBe(true);
    expect(hasMalformedParam({ h: { 'k\ud800': 'v' } })).toBe(true);
    expect(hasMalformedParam({ a: { b: { c: { d: { e: 'deeper than GitLab looks\0' } } } } })).toBe(true);
    expect(hasMalformedParam(undefined)).toBe(false);
    expect(hasMalformedParam('x\0')).toBe(true);
  });
  it('ignores buffers (file contents may hold any byte)', () => expect(hasMalformedParam({ file: Buffer.from([0, 0xff]) })).toBe(false));
  it('walks 100,000 levels without exhausting the stack', () => {
    let v: unknown = 'leaf\0';
    for (let i = 0; i < 100_000; i++) v = i % 2 ? [v] : { a: v };
    expect(hasMalformedParam(v)).toBe(true);
  });
});

describe('hasMalformedCredentials (Authorization, as Node hands it over: one char per byte)', () => {
  const basic = (bytes: number[]) => `Basic ${Buffer.from(bytes).toString('base64')}`;
  it('accepts absent, ASCII and UTF-8 credentials', () => {
    expect(hasMalformedCredentials(undefined)).toBe(false);
    expect(hasMalformedCredentials('Bearer glpat-abc')).toBe(false);
    expect(hasMalformedCredentials(`Basic ${Buffer.from('root:caf\u00e9').toString('base64')}`)).toBe(false);
    expect(hasMalformedCredentials(Buffer.from('Bearer caf\u00e9').toString('latin1'))).toBe(false); // UTF-8 bytes on the wire
  });
  it('refuses Basic credentials that decode to a NUL or to bytes that are not UTF-8, and raw non-UTF-8 bytes', () => {
    expect(hasMalformedCredentials(basic([0x61, 0x00, 0x3a, 0x62]))).toBe(true);
    expect(hasMalformedCredentials(basic([0x61, 0xc0, 0x3a, 0x62]))).toBe(true);
    expect(hasMalformedCredentials('Bearer caf\u00e9')).toBe(true); // a single 0xE9 byte
  });
});

describe('utf8FromLatin1 (multipart fields read one char per byte)', () => {
  it('decodes UTF-8 bytes and keeps ASCII', () => {
    expect(utf8FromLatin1('plain')).toBe('plain');
    expect(utf8FromLatin1(Buffer.from('café 😀').toString('latin1'))).toBe('café 😀');
  });
  it('is undefined for bytes that are not UTF-8', () => {
    expect(utf8FromLatin1('caf\u00e9')).toBeUndefined();
    expect(utf8FromLatin1('\u00c0\u00af')).toBeUndefined();
  });
  it('keeps text busboy already decoded with a charset its part declared (chars above U+00FF)', () =>
    expect(utf8FromLatin1('Ελληνικά')).toBe('Ελληνικά'));
});
