import http from 'node:http';
import { RawBytes, type Value } from './param-values';
import { encodeComponent, type RequestSpec } from './route-requests';

/** A `RequestSpec` as bytes on the wire, and a keep-alive HTTP client that sends exactly those bytes. */

export interface WireRequest {
  method: string;
  /** Path and query string, as sent. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface WireResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface Tokens {
  user: string;
  admin: string;
}

type Pair = [string, string | RawBytes];

/** Rack's bracket syntax: `a[]=1`, `a[b]=c`; `null` as an empty value. */
function flatten(prefix: string, v: Value, out: Pair[]): void {
  if (v instanceof RawBytes) out.push([prefix, v]);
  else if (Array.isArray(v)) {
    if (v.length === 0) out.push([`${prefix}[]`, '']);
    for (const x of v) flatten(`${prefix}[]`, x, out);
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) flatten(`${prefix}[${k}]`, x, out);
  } else out.push([prefix, v === null ? '' : String(v)]);
}

function pairs(record: Record<string, Value>): Pair[] {
  const out: Pair[] = [];
  for (const [k, v] of Object.entries(record)) flatten(k, v, out);
  return out;
}

const percentBytes = (b: Buffer) => [...b].map((x) => `%${x.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const formValue = (v: string | RawBytes) => (v instanceof RawBytes ? percentBytes(v.bytes) : encodeComponent(v));
const formEncode = (list: Pair[]) => list.map(([k, v]) => `${encodeComponent(k)}=${formValue(v)}`).join('&');

/** WHATWG escapes for names in Content-Disposition. */
const dispositionName = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

function multipart(list: Pair[], files: RequestSpec['files'], boundary: string, truncate: boolean): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, value] of list) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${dispositionName(name)}"\r\n\r\n`));
    chunks.push(value instanceof RawBytes ? value.bytes : Buffer.from(value, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  for (const f of files) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${dispositionName(f.field)}"; filename="${dispositionName(f.filename)}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    chunks.push(f.content, Buffer.from('\r\n'));
  }
  if (!truncate) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

let boundaries = 0;

export function toWire(spec: RequestSpec, tokens: Tokens): WireRequest {
  const headers: Record<string, string> = {};
  const queryPairs = pairs(spec.query);
  const token = spec.caller === 'user' ? tokens.user : spec.caller === 'admin' ? tokens.admin : spec.caller === 'bad-token' ? 'glpat-fuzz-unknown-token-000' : undefined;
  if (token && spec.via === 'query') queryPairs.push(['private_token', token]);
  else if (token && spec.via === 'bearer') headers.Authorization = `Bearer ${token}`;
  else if (token) headers['PRIVATE-TOKEN'] = token;
  if (spec.authorization !== undefined) headers.Authorization = spec.authorization;
  if (spec.host !== undefined) headers.Host = spec.host;

  let body: Buffer | undefined;
  switch (spec.encoding) {
    case 'json':
      headers['Content-Type'] = 'application/json';
      body = Buffer.from(JSON.stringify(spec.body));
      break;
    case 'form':
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = Buffer.from(formEncode(pairs(spec.body)));
      break;
    case 'multipart': {
      const boundary = `----fuzz${(boundaries++).toString(36)}`;
      headers['Content-Type'] = `multipart/form-data; boundary=${boundary}`;
      body = multipart(pairs(spec.body), spec.files, boundary, spec.truncateMultipart === true);
      break;
    }
    case 'text':
      headers['Content-Type'] = 'text/plain';
      body = spec.rawBody;
      break;
    case 'odd':
      if (spec.contentType) headers['Content-Type'] = spec.contentType;
      body = spec.rawBody;
      break;
    case 'query':
      break;
  }
  if (body && spec.contentEncoding) headers['Content-Encoding'] = spec.contentEncoding;
  const query = [formEncode(queryPairs), spec.rawQuery ?? ''].filter((s) => s !== '').join('&');
  return { method: spec.method, target: `/api/v4${spec.path}${query ? `?${query}` : ''}`, headers, body };
}

/** One line per request for failure messages (bodies cut short). */
export function describe(w: WireRequest): string {
  const body = w.body ? ` body(${w.body.length})=${JSON.stringify(w.body.subarray(0, 300).toString('latin1'))}` : '';
  return `${w.method} ${w.target.slice(0, 400)} headers=${JSON.stringify(w.headers)}${body}`;
}

export function httpClient(baseUrl: string, maxSockets: number) {
  const { hostname, port } = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const send = (w: WireRequest): Promise<WireResponse> =>
    new Promise((resolve, reject) => {
      const headers = { ...w.headers, ...(w.body ? { 'Content-Length': String(w.body.length) } : {}) };
      // Link headers echo the query 4 times: a 5 KB query makes response headers beyond Node's default 16 KB.
      const req = http.request({ agent, hostname, port, method: w.method, path: w.target, headers, timeout: 30_000, maxHeaderSize: 1 << 20 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (err: NodeJS.ErrnoException) => {
        // Node answers a request head over its 16 KB limit with 431 and closes the socket, often before the
        // client has finished writing: a reset then stands for that 431.
        const head = w.target.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
        if (head > 16 * 1024 - 512 && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) resolve({ status: 431, headers: {}, body: Buffer.alloc(0) });
        else reject(err);
      });
      req.end(w.body);
    });
  return { send, close: () => agent.destroy() };
}
