import { registry } from '@glp/service-kit';
import { MAX_VARIANTS, PresentedJsonCache } from './presented-json-cache';
import { presentationVariant, type Viewer } from './project';
import { urlBuilder } from './urls';

const bytes = (...b: number[]) => Uint8Array.from(b);

describe('PresentedJsonCache', () => {
  it('presents a message once per variant and answers the same JSON again', () => {
    const cache = new PresentedJsonCache(1 << 20);
    let presented = 0;
    const present = () => ({ n: ++presented, s: 'ü' });
    const first = cache.json('with_access', 1, bytes(1, 2, 3), present);
    expect(JSON.parse(first.toString('utf8'))).toEqual({ n: 1, s: 'ü' });
    expect(cache.json('with_access', 1, bytes(1, 2, 3), present)).toBe(first);
    expect(presented).toBe(1);
    // Another variant, or another message, is another entry.
    expect(JSON.parse(cache.json('basic', 1, bytes(1, 2, 3), present).toString())).toEqual({ n: 2, s: 'ü' });
    expect(JSON.parse(cache.json('with_access', 2, bytes(2, 2, 3), present).toString())).toEqual({ n: 3, s: 'ü' });
    expect(cache.stats.entries).toBe(3);
  });

  it('answers only a message of the very bytes a version was made from, keeping the last four versions of an id', () => {
    const cache = new PresentedJsonCache(1 << 20);
    let presented = 0;
    const present = () => ++presented;
    cache.json('v', 7, bytes(7, 1), present);
    // The same project seen by a member with another level (or changed): other bytes, presented and kept beside it.
    expect(cache.json('v', 7, bytes(7, 2), present).toString()).toBe('2');
    expect(cache.json('v', 7, bytes(7, 1), present).toString()).toBe('1');
    expect(cache.json('v', 7, bytes(7, 2), present).toString()).toBe('2');
    // Bytes of another length, even a prefix, are other bytes.
    expect(cache.json('v', 7, bytes(7), present).toString()).toBe('3');
    expect(cache.json('v', 7, bytes(7, 3), present).toString()).toBe('4');
    expect(cache.stats.entries).toBe(1);
    // A fifth version pushes out the one presented first.
    expect(cache.json('v', 7, bytes(7, 4), present).toString()).toBe('5');
    expect(cache.json('v', 7, bytes(7, 2), present).toString()).toBe('2');
    expect(cache.json('v', 7, bytes(7, 1), present).toString()).toBe('6');
  });

  it('compares the bytes of a view, not the buffer around it, and keeps a copy of them', () => {
    const cache = new PresentedJsonCache(1 << 20);
    const whole = bytes(9, 1, 2, 3, 9);
    cache.json('v', 1, whole.subarray(1, 4), () => 'kept');
    whole.fill(0); // the answer the view was of, reused: the kept entry does not change with it
    expect(cache.json('v', 1, bytes(1, 2, 3), () => 'other').toString()).toBe('"kept"');
    expect(cache.json('v', 1, bytes(9, 1, 2, 3, 9), () => 'whole').toString()).toBe('"whole"');
    expect(cache.stats.bytes).toBeLessThan(100); // the copy is of the view's 5 bytes at most, not of a larger buffer
  });

  it('does not mistake a variant and id for another split of the same characters', () => {
    const cache = new PresentedJsonCache(1 << 20);
    cache.json('a1', 1, bytes(1), () => 1);
    expect(cache.json('a', 11, bytes(1), () => 2).toString()).toBe('2');
  });

  it('keys ids of 2^32 and over apart from the ids under it, and from other variants', () => {
    const cache = new PresentedJsonCache(1 << 20);
    const big = 2 ** 32;
    cache.json('a', 5, bytes(1), () => 'a5');
    cache.json('b', 5, bytes(1), () => 'b5');
    // 'a' is variant 1 and 'b' variant 2: numbered keys 2^32 + 5 and 2 × 2^32 + 5. Id 2^32 + 5 of 'a' is neither.
    expect(cache.json('a', big + 5, bytes(1), () => 'a-big').toString()).toBe('"a-big"');
    expect(cache.json('a', 5, bytes(1), () => 'again').toString()).toBe('"a5"');
    expect(cache.json('b', 5, bytes(1), () => 'again').toString()).toBe('"b5"');
    expect(cache.json('a', big + 5, bytes(1), () => 'again').toString()).toBe('"a-big"');
    expect(cache.json('a', -1, bytes(1), () => 'negative').toString()).toBe('"negative"');
    expect(cache.json('a', -1, bytes(1), () => 'again').toString()).toBe('"negative"');
    expect(cache.stats.entries).toBe(4);
  });

  it('numbers at most MAX_VARIANTS variants, then starts over with nothing kept', () => {
    const cache = new PresentedJsonCache(1 << 20);
    for (let i = 0; i < MAX_VARIANTS; i++) cache.json(`host-${i}`, 1, bytes(1), () => i);
    expect(cache.stats).toMatchObject({ entries: MAX_VARIANTS, variants: MAX_VARIANTS });
    expect(cache.json('host-0', 1, bytes(1), () => 'again').toString()).toBe('0');
    // One more: every number is forgotten with the entries keyed by it, so the new variant 1 answers nothing of host-0's.
    expect(cache.json('another host', 1, bytes(1), () => 'new').toString()).toBe('"new"');
    expect(cache.stats).toMatchObject({ entries: 1, variants: 1 });
    expect(cache.json('host-0', 1, bytes(1), () => 'presented anew').toString()).toBe('"presented anew"');
    expect(cache.json('another host', 1, bytes(1), () => 'again').toString()).toBe('"new"');
  });

  it('counts hits and misses when the metrics are scraped (glp_gateway_presented_json_total)', async () => {
    // [hits, misses] as a scrape reads them (the counter's collect() adds what was counted since the last one).
    const counts = async () => {
      const { values } = await registry.getSingleMetric('glp_gateway_presented_json_total')!.get();
      return ['hit', 'miss'].map((result) => values.find((v) => v.labels.result === result)?.value ?? 0);
    };
    const [hits = 0, misses = 0] = await counts();
    const cache = new PresentedJsonCache(1 << 20);
    cache.json('v', 1, bytes(1), () => 1);
    cache.json('v', 1, bytes(1), () => 1);
    cache.json('v', 1, bytes(1), () => 1);
    expect(await counts()).toEqual([hits + 2, misses + 1]);
    expect(await counts()).toEqual([hits + 2, misses + 1]);
  });

  it('keeps at most maxBytes of keys, bytes and JSON, least recently used going first', () => {
    const cache = new PresentedJsonCache(3_000);
    const big = (i: number) => new Uint8Array(500).fill(i);
    for (let i = 0; i < 10; i++) cache.json('v', i, big(i), () => 'x'.repeat(400));
    expect(cache.stats.bytes).toBeLessThanOrEqual(3_000);
    expect(cache.stats.entries).toBeLessThan(10);
    let again = 0;
    cache.json('v', 9, big(9), () => ++again);
    cache.json('v', 0, big(0), () => ++again);
    expect(again).toBe(1); // the newest was kept, the oldest was not
  });

  it('keeps short JSON and bytes in memory of their own, not in a slice of Buffer\'s shared pool', () => {
    const cache = new PresentedJsonCache(1 << 20);
    const json = cache.json('v', 7, bytes(7), () => ({ short: true }));
    expect(json.toString()).toBe('{"short":true}');
    expect(json.buffer.byteLength).toBe(json.length);
    expect(cache.stats.bytes).toBe(json.length + 1 + 8); // JSON, 1 byte, a number key
  });

  it('keeps nothing with 0 bytes', () => {
    const cache = new PresentedJsonCache(0);
    let presented = 0;
    cache.json('v', 1, bytes(1), () => ++presented);
    cache.json('v', 1, bytes(1), () => ++presented);
    expect(presented).toBe(2);
    expect(cache.stats).toEqual({ entries: 0, bytes: 0, variants: 0 });
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
