import { FLUSH_PKT, parsePktLines, pktLine, serviceAnnouncement } from './pkt-line';

describe('pkt-line', () => {
  it('frames data with its length in four hex digits, the four included', () => {
    expect(pktLine('a\n').toString()).toBe('0006a\n');
    expect(pktLine('').toString()).toBe('0004');
    expect(pktLine(Buffer.alloc(65516)).subarray(0, 4).toString()).toBe('fff0');
    expect(() => pktLine(Buffer.alloc(65517))).toThrow(RangeError);
  });

  it('announces the service as git http-backend does before a v0 advertisement', () => {
    expect(serviceAnnouncement('git-upload-pack').toString()).toBe('001e# service=git-upload-pack\n0000');
    expect(serviceAnnouncement('git-receive-pack').toString()).toBe('001f# service=git-receive-pack\n0000');
  });

  it('parses packets, special packets and keeps an incomplete tail', () => {
    const wire = Buffer.from(`${pktLine('hello\n').toString()}0001${FLUSH_PKT}0002000ahel`);
    const { packets, rest } = parsePktLines(wire);
    expect(packets).toEqual([{ kind: 'data', data: Buffer.from('hello\n') }, { kind: 'delim' }, { kind: 'flush' }, { kind: 'response-end' }]);
    expect(rest.toString()).toBe('000ahel');
    // The rest, completed, parses.
    expect(parsePktLines(Buffer.concat([rest, Buffer.from('lo\n')])).packets).toEqual([{ kind: 'data', data: Buffer.from('hello\n') }]);
    expect(parsePktLines(Buffer.from('00')).rest.toString()).toBe('00');
  });

  it('refuses what git refuses: non-hex lengths and the reserved length 3', () => {
    expect(() => parsePktLines(Buffer.from('zzzzdata'))).toThrow(/bad line length character/);
    expect(() => parsePktLines(Buffer.from('0003'))).toThrow(/bad line length 3/);
  });
});
