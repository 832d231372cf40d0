import { types } from 'pg';
import { fastTimestamptz } from './timestamptz';

// node-pg's own parser (postgres-date), as it was before libs/db replaced it (taken from pg-types directly).
const nodePg = types.getTypeParser(types.builtins.TIMESTAMPTZ, 'text') as (s: string) => unknown;

describe('fastTimestamptz', () => {
  it("reads PostgreSQL's ISO output, with or without fraction, at any whole-hour, minute or second offset", () => {
    const iso = (s: string) => fastTimestamptz(s)?.toISOString();
    expect(iso('2026-11-28 20:15:58.123456+00')).toBe('2026-11-28T20:15:58.123Z');
    expect(iso('2026-11-28 20:15:58+00')).toBe('2026-11-28T20:15:58.000Z');
    expect(iso('2026-11-28 20:15:58.5+00')).toBe('2026-11-28T20:15:58.500Z');
    expect(iso('2026-11-28 20:15:58.009+00')).toBe('2026-11-28T20:15:58.009Z');
    expect(iso('2026-11-28 20:15:58.999999+00')).toBe('2026-11-28T20:15:58.999Z'); // truncated, not rounded
    expect(iso('2026-11-28 20:15:58.1+05:30')).toBe('2026-11-28T14:45:58.100Z');
    expect(iso('2026-03-01 01:00:00-08')).toBe('2026-03-01T09:00:00.000Z');
    expect(iso('1900-01-01 00:00:00+00:53:28')).toBe('1899-12-31T23:06:32.000Z');
    expect(iso('2024-02-29 23:59:59.001-00:30')).toBe('2024-03-01T00:29:59.001Z');
  });

  it('leaves every other shape to node-pg: infinity, BC, years before 100 or past 9999, other DateStyles', () => {
    for (const s of ['infinity', '-infinity', '2026-01-01 00:00:00+00 BC', '0044-03-15 12:00:00+00', '12026-01-01 00:00:00+00',
      'Sat Nov 28 20:15:58 2026 UTC', '2026-11-28T20:15:58+00', '2026-11-28', '', '2026-11-28 20:15:58.123+00 ']) {
      expect(fastTimestamptz(s)).toBeUndefined();
    }
  });

  it('agrees with node-pg on random instants, fractions and offsets', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pad = (x: number, w = 2) => String(x).padStart(w, '0');
    for (let k = 0; k < 5000; k++) {
      const offsetMin = (rnd(2) ? 1 : -1) * (rnd(15) * 60 + [0, 30, 45][rnd(3)]!);
      const at = new Date(Date.UTC(1000 + rnd(9000), 0, 1) + rnd(366 * 86_400) * 1000);
      const local = new Date(at.getTime() + offsetMin * 60_000);
      const fraction = ['', `.${pad(rnd(10), 1)}`, `.${pad(rnd(1000), 3)}`, `.${pad(rnd(1_000_000), 6)}`][rnd(4)]!;
      const zone = `${offsetMin < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offsetMin) / 60))}${Math.abs(offsetMin) % 60 ? `:${pad(Math.abs(offsetMin) % 60)}` : ''}`;
      const s = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction}${zone}`;
      const expected = at.getTime() + Number(fraction ? fraction.slice(1, 4).padEnd(3, '0') : 0);
      expect([s, fastTimestamptz(s)?.getTime()]).toEqual([s, expected]);
      if (local.getUTCFullYear() >= 100) expect([s, (nodePg(s) as Date).getTime()]).toEqual([s, expected]);
    }
  });
});
