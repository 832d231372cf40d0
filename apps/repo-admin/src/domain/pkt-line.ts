/**
 * Git's pkt-line framing (`Documentation/gitprotocol-common.txt`): four lower-case hex digits giving the length of the
 * line including those four, then the data; `0000` is a flush packet, `0001` a delimiter and `0002` a response end
 * (protocol v2). A line carries at most 65516 bytes of data.
 */

export const FLUSH_PKT = '0000';
export const DELIM_PKT = '0001';
export const RESPONSE_END_PKT = '0002';
export const MAX_PKT_DATA = 65516;

/** One pkt-line around `data`. */
export function pktLine(data: string | Buffer): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (bytes.length > MAX_PKT_DATA) throw new RangeError(`pkt-line data beyond ${MAX_PKT_DATA} bytes`);
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0'), 'ascii'), bytes]);
}

/**
 * What smart HTTP puts before git's own ref advertisement in protocol v0/v1 (`http-backend.c` `get_info_refs`):
 * `# service=<service>\n` as a pkt-line, then a flush packet. Protocol v2 answers without it.
 */
export function serviceAnnouncement(service: string): Buffer {
  return Buffer.concat([pktLine(`# service=${service}\n`), Buffer.from(FLUSH_PKT, 'ascii')]);
}

/** A decoded packet: its data, or the special packet it is. */
export type Packet = { kind: 'data'; data: Buffer } | { kind: 'flush' | 'delim' | 'response-end' };

const SPECIAL: Record<string, Packet['kind']> = { [FLUSH_PKT]: 'flush', [DELIM_PKT]: 'delim', [RESPONSE_END_PKT]: 'response-end' };

/**
 * Splits complete packets off the front of `buf`; `rest` is an incomplete trailing packet (wait for more bytes).
 * Throws on a length that is not four hex digits or is 3 (reserved), as git does ("protocol error: bad line length").
 */
export function parsePktLines(buf: Buffer): { packets: Packet[]; rest: Buffer } {
  const packets: Packet[] = [];
  let at = 0;
  while (buf.length - at >= 4) {
    const head = buf.toString('ascii', at, at + 4);
    if (!/^[0-9a-f]{4}$/i.test(head)) throw new Error(`protocol error: bad line length character: ${JSON.stringify(head)}`);
    const special = SPECIAL[head];
    if (special) {
      packets.push({ kind: special } as Packet);
      at += 4;
      continue;
    }
    const len = parseInt(head, 16);
    if (len < 4) throw new Error(`protocol error: bad line length ${len}`);
    if (buf.length - at < len) break;
    packets.push({ kind: 'data', data: buf.subarray(at + 4, at + len) });
    at += len;
  }
  return { packets, rest: buf.subarray(at) };
}
