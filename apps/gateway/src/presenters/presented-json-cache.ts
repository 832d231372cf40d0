import { LRUCache } from 'lru-cache';
import { Counter, Gauge } from 'prom-client';
import { registry } from '@glp/service-kit';

const lookups = new Counter({
  name: 'glp_gateway_presented_json_total',
  help: 'Projects presented through the presentation cache, by result: hit (kept JSON sent) or miss (decoded, presented, serialized)',
  labelNames: ['result'],
  registers: [registry],
});
const hits = lookups.labels('hit');
const misses = lookups.labels('miss');
const keptBytes = new Gauge({
  name: 'glp_gateway_presented_json_bytes',
  help: 'Bytes (keys and JSON) the presentation cache keeps, at most PRESENTED_JSON_CACHE_BYTES',
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

/**
 * The JSON of a presented message, kept by what it is made of: the message's protobuf bytes as the service sent them
 * and the presentation's other inputs (`variant`: entity, viewer, external URL). A presenter is a pure function of
 * those, so an entry is right for as long as it is kept; a changed project, a caller with other access to it, another
 * host, each has other bytes or another variant, hence another entry. Nothing is invalidated, nothing goes stale.
 *
 * Why: a page of 20 projects is ~100 KB of JSON. Decoding it, presenting it and serializing it was the gateway's largest
 * cost per listing (~1.1-1.4 ms of 2.5-2.9 ms at 100,000 projects, c=16; bench/README.md); the same projects come back
 * page after page (dashboards, bots polling, clients walking a list), and a hit costs a map lookup instead.
 *
 * Bounded by `maxBytes` (keys and values; least recently used go first); 0 keeps nothing.
 */
export class PresentedJsonCache {
  private readonly lru: LRUCache<string, Buffer> | undefined;

  constructor(maxBytes: number) {
    this.lru = maxBytes > 0
      ? new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (json, key) => json.length + key.length })
      : undefined;
  }

  /** The UTF-8 JSON of the message `bytes` as `variant` presents it: the kept one, or `present()` serialized (and kept). */
  json(variant: string, bytes: Uint8Array, present: () => unknown): Buffer {
    if (!this.lru) return Buffer.from(JSON.stringify(present()));
    // A one-byte (latin1) string of the bytes as they are, hashed and compared by the Map; the variant first, after its
    // length (so no variant and bytes read as another variant and other bytes).
    const key = `${variant.length}:${variant}${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')}`;
    let json = this.lru.get(key);
    if (json === undefined) {
      misses.inc();
      json = unpooled(JSON.stringify(present()));
      this.lru.set(key, json);
      keptBytes.set(this.lru.calculatedSize);
    } else hits.inc();
    return json;
  }

  /** Entries and bytes kept (metrics, tests). */
  get stats(): { entries: number; bytes: number } {
    return { entries: this.lru?.size ?? 0, bytes: this.lru?.calculatedSize ?? 0 };
  }
}
