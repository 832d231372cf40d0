import { LRUCache } from 'lru-cache';
import { Gauge } from 'prom-client';
import { countedAtScrape, registry } from '@glp/service-kit';

/** Lookups by result, taken by the counter at each scrape (countedAtScrape: no label hashing per project). */
const pending = countedAtScrape({
  name: 'glp_gateway_presented_json_total',
  help: 'Projects presented through the presentation cache, by result: hit (kept JSON sent) or miss (decoded, presented, serialized)',
  label: 'result',
  values: ['hit', 'miss'] as const,
});
const keptBytes = new Gauge({
  name: 'glp_gateway_presented_json_bytes',
  help: 'Bytes (keys, the messages\' bytes and JSON) the presentation cache keeps, at most PRESENTED_JSON_CACHE_BYTES',
  registers: [registry],
});

/**
 * The UTF-8 bytes of `text` in memory of their own: Buffer.from puts a short string (under 4 KiB) in a slice of an
 * 8 KiB pool, which a kept entry would hold whole.
 */
function unpooled(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** A copy of `bytes` in memory of its own: not the answer they may be a view of, nor a slice of Buffer's pool. */
function unpooledCopy(bytes: Uint8Array): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.byteLength);
  copy.set(bytes);
  return copy;
}

/** A kept presentation: the message's bytes it was made from, and its UTF-8 JSON. */
interface Presented {
  bytes: Buffer;
  json: Buffer;
}

/**
 * Versions of one message kept under one variant and id, the newest first: a project carries its caller's access
 * levels, so members with other levels see other bytes of it (and a changed project is another version until it falls
 * off the end). Kept side by side, callers listing the same projects do not push each other's presentations out.
 */
const VERSIONS_PER_ID = 4;

/** Variants numbered at most at once (entryKey); the ones a deployment sees are a few per host. */
export const MAX_VARIANTS = 1024;
/** Ids below this are a key's low part (entryKey): with MAX_VARIANTS, keys stay under 2^42, exact as numbers. */
const ID_SPAN = 2 ** 32;

/**
 * The JSON of a presented message, kept by what it is made of: the message's protobuf bytes as the service sent them
 * and the presentation's other inputs (`variant`: entity, viewer, external URL). A presenter is a pure function of
 * those, so an entry is right for as long as it is kept; a changed project, a caller with other access to it, another
 * host, each has other bytes or another variant, hence is not answered by it. Nothing is invalidated, nothing goes stale.
 *
 * Entries are found by the variant and the message's id (entryKey), and one answers only a message of the very bytes
 * it was made from (compared whole; up to VERSIONS_PER_ID versions kept per id): the same exactness as keying by the
 * bytes, without turning each project's bytes (~650 in the benchmark's listings, more with descriptions and settings)
 * into a string key and hashing it for every project of every page (bench/README.md).
 *
 * Why: a page of 20 projects is ~100 KB of JSON. Decoding it, presenting it and serializing it was the gateway's largest
 * cost per listing (~1.1-1.4 ms of 2.5-2.9 ms at 100,000 projects, c=16; bench/README.md); the same projects come back
 * page after page (dashboards, bots polling, clients walking a list), and a hit costs a map lookup and a compare instead.
 *
 * Bounded by `maxBytes` (keys, bytes and JSON; least recently used go first); 0 keeps nothing.
 */
export class PresentedJsonCache {
  private readonly lru: LRUCache<number | string, Presented[]> | undefined;
  /** The variants seen, numbered from 1 in the order seen: a key is the variant's number and the id (entryKey). */
  private readonly variants = new Map<string, number>();

  constructor(maxBytes: number) {
    this.lru = maxBytes > 0
      ? new LRUCache<number | string, Presented[]>({
        maxSize: maxBytes,
        sizeCalculation: (versions, key) => versions.reduce((n, v) => n + v.json.length + v.bytes.length, typeof key === 'number' ? 8 : key.length),
      })
      : undefined;
  }

  /**
   * The key of `id` under `variant`: a number (the variant's number × 2^32 + the id) for every id under 2^32, else a
   * string of both numbers. A page of 20 projects once built and hashed 20 strings of the variant (its URL included)
   * and the id, ~5 KB per listing; with the answer's split (project-bytes-client.ts) that was ~29 µs of CPU a listing
   * in-process, ~5 µs now (bench/README.md).
   * Variant numbers are never reused while entries keyed by them are kept: past MAX_VARIANTS (a host per request can
   * make variants without end) both are cleared.
   */
  private entryKey(lru: LRUCache<number | string, Presented[]>, variant: string, id: number): number | string {
    let n = this.variants.get(variant);
    if (n === undefined) {
      if (this.variants.size >= MAX_VARIANTS) {
        this.variants.clear();
        lru.clear();
      }
      n = this.variants.size + 1;
      this.variants.set(variant, n);
    }
    return Number.isInteger(id) && id >= 0 && id < ID_SPAN ? n * ID_SPAN + id : `${n}:${id}`;
  }

  /**
   * The UTF-8 JSON of the message `bytes` (whose id is `id`) as `variant` presents it: the kept one when it was made
   * from these bytes, or `present()` serialized (and kept, with a copy of the bytes: `bytes` may be a view of a whole
   * answer).
   */
  json(variant: string, id: number, bytes: Uint8Array, present: () => unknown): Buffer {
    if (!this.lru) return Buffer.from(JSON.stringify(present()));
    const key = this.entryKey(this.lru, variant, id);
    const versions = this.lru.get(key);
    const kept = versions?.find((version) => version.bytes.equals(bytes));
    if (kept !== undefined) {
      pending.hit++;
      return kept.json;
    }
    pending.miss++;
    const json = unpooled(JSON.stringify(present()));
    this.lru.set(key, [{ bytes: unpooledCopy(bytes), json }, ...(versions ?? []).slice(0, VERSIONS_PER_ID - 1)]);
    keptBytes.set(this.lru.calculatedSize);
    return json;
  }

  /** Entries (ids under a variant), bytes kept, variants numbered (metrics, tests). */
  get stats(): { entries: number; bytes: number; variants: number } {
    return { entries: this.lru?.size ?? 0, bytes: this.lru?.calculatedSize ?? 0, variants: this.variants.size };
  }
}
