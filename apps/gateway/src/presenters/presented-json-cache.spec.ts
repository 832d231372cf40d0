import { PresentedJsonCache } from './presented-json-cache';
import { presentationVariant, type Viewer } from './project';
import { urlBuilder } from './urls';

const bytes = (...b: number[]) => Uint8Array.from(b);

describe('PresentedJsonCache', () => {
  it('presents a message once per variant and answers the same JSON again', () => {
    const cache = new PresentedJsonCache(1 << 20);
    let presented = 0;
    const present = () => ({ n: ++presented, s: 'ü' });
    const first = cache.json('with_access', bytes(1, 2, 3), present);
    expect(JSON.parse(first.toString('utf8'))).toEqual({ n: 1, s: 'ü' });
    expect(cache.json('with_access', bytes(1, 2, 3), present)).toBe(first);
    expect(presented).toBe(1);
    // Another variant, or other bytes (a changed project, another caller's access), is another entry.
    expect(JSON.parse(cache.json('basic', bytes(1, 2, 3), present).toString())).toEqual({ n: 2, s: 'ü' });
    expect(JSON.parse(cache.json('with_access', bytes(1, 2, 4), present).toString())).toEqual({ n: 3, s: 'ü' });
    expect(cache.stats.entries).toBe(3);
  });

  it('keys by the bytes of a view, not by the buffer around it', () => {
    const cache = new PresentedJsonCache(1 << 20);
    const whole = bytes(9, 1, 2, 3, 9);
    cache.json('v', whole.subarray(1, 4), () => 'kept');
    expect(cache.json('v', bytes(1, 2, 3), () => 'other').toString()).toBe('"kept"');
    expect(cache.json('v', whole, () => 'whole').toString()).toBe('"whole"');
  });

  it('does not mistake a variant and bytes for another split of the same characters', () => {
    const cache = new PresentedJsonCache(1 << 20);
    cache.json('a', Buffer.from('\nb'), () => 1);
    expect(cache.json('a\n', Buffer.from('b'), () => 2).toString()).toBe('2');
  });

  it('keeps at most maxBytes of keys and JSON, least recently used going first', () => {
    const cache = new PresentedJsonCache(3_000);
    const big = (i: number) => new Uint8Array(500).fill(i);
    for (let i = 0; i < 10; i++) cache.json('v', big(i), () => 'x'.repeat(400));
    expect(cache.stats.bytes).toBeLessThanOrEqual(3_000);
    expect(cache.stats.entries).toBeLessThan(10);
    let again = 0;
    cache.json('v', big(9), () => ++again);
    cache.json('v', big(0), () => ++again);
    expect(again).toBe(1); // the newest was kept, the oldest was not
  });

  it('keeps short JSON in memory of its own, not in a slice of Buffer\'s shared pool', () => {
    const cache = new PresentedJsonCache(1 << 20);
    const json = cache.json('v', bytes(7), () => ({ short: true }));
    expect(json.toString()).toBe('{"short":true}');
    expect(json.buffer.byteLength).toBe(json.length);
  });

  it('keeps nothing with 0 bytes', () => {
    const cache = new PresentedJsonCache(0);
    let presented = 0;
    cache.json('v', bytes(1), () => ++presented);
    cache.json('v', bytes(1), () => ++presented);
    expect(presented).toBe(2);
    expect(cache.stats).toEqual({ entries: 0, bytes: 0 });
  });
});

describe('presentationVariant', () => {
  it('differs with the entity, each field of the viewer and the external URL', () => {
    const base: Required<Viewer> = { authenticated: true, admin: false, customAttributes: false, license: false };
    const urls = urlBuilder('http://gitlab.example.com');
    const variants = [
      presentationVariant('with_access', base, urls),
      presentationVariant('basic', base, urls),
      presentationVariant('with_access', base, urlBuilder('https://gitlab.example.com')),
      ...(Object.keys(base) as (keyof Viewer)[]).map((k) => presentationVariant('with_access', { ...base, [k]: !base[k] }, urls)),
    ];
    expect(new Set(variants).size).toBe(variants.length);
    // An absent optional field is its default, false.
    expect(presentationVariant('basic', { authenticated: false, admin: false }, urls)).toBe(
      presentationVariant('basic', { authenticated: false, admin: false, customAttributes: false, license: false }, urls),
    );
  });
});
