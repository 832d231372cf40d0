import express from 'express';
import { queryStringParser, type QueryParser } from './query-string';

/** Express's own "extended" parser (qs with `allowPrototypes`), which the fast path must answer exactly like. */
function expressExtended(): QueryParser {
  const app = express();
  app.set('query parser', 'extended');
  return app.get('query parser fn') as QueryParser;
}

const qsExtended = expressExtended();

describe('queryStringParser', () => {
  const calls: string[] = [];
  const parse = queryStringParser((str) => {
    calls.push(String(str));
    return qsExtended(str);
  });
  beforeEach(() => calls.splice(0));

  it.each([
    ['visibility=internal&order_by=last_activity_at&sort=desc&page=25&per_page=20'],
    ['search=a+b%20c&simple=true'],
    ['a=%E0%A4%A&b=%ZZ&c=100%'],
    ['flag&=x&&empty=&x=1=2'],
    ['constructor=1&toString=2&hasOwnProperty=3&valueOf=4'],
    ['%61=decoded-key&b+c=space-key'],
    ['2=two&1=one&b=bee'],
    ['caf%C3%A9=%E2%9C%93'],
  ])('answers %p itself, as qs does', (str) => {
    const got = parse(str);
    expect(got).toEqual(qsExtended(str));
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got as object)).toEqual(Object.keys(qsExtended(str) as object));
    expect(calls).toEqual([]);
  });

  it.each([
    ['topic[]=a&topic[]=b'],
    ['custom_attributes[foo]=bar'],
    ['topic%5B%5D=a'],
    ['topic%5b%5d=a'],
    ['a=1&a=2'],
    ['a=1&%61=2'],
    ['__proto__=x&a=1'],
    ['x=%5Bnot-nested%5D'],
  ])('hands %p to qs', (str) => {
    expect(parse(str)).toEqual(qsExtended(str));
    expect(calls).toEqual([str]);
  });

  it('answers an empty or missing query string with an empty object', () => {
    for (const str of ['', null, undefined]) expect(parse(str)).toEqual({});
  });

  it('keeps the first 1,000 pairs, as qs does', () => {
    const str = Array.from({ length: 1005 }, (_, i) => `k${i}=${i}`).join('&');
    const got = parse(str) as Record<string, string>;
    expect(Object.keys(got)).toHaveLength(1000);
    expect(got).toEqual(qsExtended(str));
  });

  it('answers as qs does for random strings of the characters that matter', () => {
    const alphabet = ['a', 'b', '=', '&', '+', '%', '%41', '%2', '%C3%A9', '[', ']', '%5B', '%5d', '__proto__', 'constructor', '.', ' '];
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 5000; n++) {
      const str = Array.from({ length: 1 + Math.floor(next() * 12) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      expect([str, parse(str)]).toEqual([str, qsExtended(str)]);
    }
  });
});
