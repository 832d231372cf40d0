import { safeResponseHeaders, truncateBytes } from './response-limits';

describe('response limits', () => {
  it('truncates by bytes with an ellipsis, never inside a character', () => {
    expect(truncateBytes('short', 10)).toBe('short');
    expect(truncateBytes('a'.repeat(20), 10)).toBe(`${'a'.repeat(7)}…`);
    const t = truncateBytes('é'.repeat(10), 10);
    expect(Buffer.byteLength(t)).toBeLessThanOrEqual(10);
    expect(t).toBe('ééé…');
  });

  it('capitalizes header names and keeps at most 50', () => {
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`x-h-${i}`, 'v']));
    const out = safeResponseHeaders({ 'content-type': 'text/plain', 'set-cookie': ['a', 'b'], ...many });
    expect(out['Content-Type']).toBe('text/plain');
    expect(out['Set-Cookie']).toBe('a, b');
    expect(Object.keys(out)).toHaveLength(50);
  });
});
