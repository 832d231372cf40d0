/** What the delivery log keeps of a response (`WebHookService`: 8 KiB body, 50 headers of ≤ 1 KiB each). */
export const RESPONSE_BODY_SIZE_LIMIT = 8 * 1024;
export const RESPONSE_HEADERS_COUNT_LIMIT = 50;
export const RESPONSE_HEADERS_SIZE_LIMIT = 1024;
const OMISSION = '…';

/** ActiveSupport's `String#truncate_bytes` (omission "…", never splitting a character). */
export function truncateBytes(s: string, limit: number): string {
  if (Buffer.byteLength(s) <= limit) return s;
  const budget = limit - Buffer.byteLength(OMISSION);
  let out = '';
  let used = 0;
  for (const ch of s) {
    const n = Buffer.byteLength(ch);
    if (used + n > budget) break;
    out += ch;
    used += n;
  }
  return out + OMISSION;
}

/** `each_capitalized.first(50)`: "content-type" → "Content-Type", values truncated. */
export function safeResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers).slice(0, RESPONSE_HEADERS_COUNT_LIMIT)) {
    if (v === undefined) continue;
    const key = k.split('-').map((w) => (w ? w[0]!.toUpperCase() + w.slice(1).toLowerCase() : w)).join('-');
    out[key] = truncateBytes(Array.isArray(v) ? v.join(', ') : v, RESPONSE_HEADERS_SIZE_LIMIT);
  }
  return out;
}
