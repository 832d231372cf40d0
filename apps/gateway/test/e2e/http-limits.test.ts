import { connect, type Socket } from 'node:net';
import { Pool } from 'pg';
import { startStack, type RunningStack } from '@glp/testing';

/**
 * Limits that keep one client from hurting others: body sizes (413 with a JSON body), the HTTP server's header,
 * request and keep-alive timeouts (slow clients are cut off; many of them do not slow a normal client down), and
 * percent-encoded ids that try to leave their namespace (404, never another project's data, never a 500). The stack
 * runs with short timeouts (HTTP_HEADERS_TIMEOUT_MS=1500, HTTP_REQUEST_TIMEOUT_MS=4000, HTTP_KEEP_ALIVE_TIMEOUT_MS=1000)
 * and small body limits (BODY_LIMIT=64kb, MAX_ATTACHMENT_SIZE=1 MiB) so that every case is quick.
 */

const HEADERS_MS = 1500;
const REQUEST_MS = 4000;
const KEEP_ALIVE_MS = 1000;
const TOO_LARGE = { message: '413 Request Entity Too Large' };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };

/** A raw TCP connection to the gateway: what it received, and when (ms after connecting) the server closed it. */
interface Raw {
  socket: Socket;
  received(): string;
  closed: Promise<number>;
}

describe('HTTP limits: body sizes, slow and idle clients, encoded ids', () => {
  let stack: RunningStack;
  let pool: Pool;
  let port: number;
  const projects: Record<string, { id: number; path_with_namespace: string; name: string }> = {};

  const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.token === undefined ? stack.rootToken : init.token;
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const countProjects = async () =>
    (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${stack.schemas.projects}.projects`)).rows[0]!.n;
  const basicRoot = () => `Basic ${Buffer.from(`root:${stack.rootToken}`).toString('base64')}`;

  const open = (): Promise<Raw> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (data += chunk));
      socket.once('connect', () => {
        const start = Date.now();
        const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - start)));
        socket.on('error', () => undefined); // a reset is a close too
        resolve({ socket, received: () => data, closed });
      });
      socket.once('error', reject);
    });
  /** Writes `text` one byte every `everyMs` while the socket is open. */
  const dribble = (raw: Raw, text: string, everyMs: number) => {
    let i = 0;
    const timer = setInterval(() => {
      if (raw.socket.destroyed || i >= text.length) return clearInterval(timer);
      raw.socket.write(text[i++]!);
    }, everyMs);
    raw.socket.once('close', () => clearInterval(timer));
  };
  /** Sends `request` whole on a raw socket and answers the response head and body once the server closes it. */
  const rawRequest = async (request: string) => {
    const raw = await open();
    raw.socket.write(request);
    await raw.closed;
    return raw.received();
  };

  beforeAll(async () => {
    stack = await startStack({
      name: 'e2e_http_limits',
      env: {
        BODY_LIMIT: '64kb', MAX_ATTACHMENT_SIZE: '1',
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS), HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      },
    });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    port = Number(new URL(stack.url).port);
    for (const name of ['alpha', 'beta']) {
      const res = await api('/projects', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, initialize_with_readme: true }) });
      expect(res.status).toBe(201);
      projects[name] = (await res.json()) as (typeof projects)[string];
    }
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('answers a JSON, urlencoded or chunked body over BODY_LIMIT with 413 and a JSON body, and creates nothing', async () => {
    const before = await countProjects();
    const big = 'x'.repeat(70 * 1024);
    const bodies: Array<[string, RequestInit['body'], Record<string, string>]> = [
      ['json', JSON.stringify({ name: 'too-big', description: big }), { 'Content-Type': 'application/json' }],
      ['form', `name=too-big&description=${big}`, { 'Content-Type': 'application/x-www-form-urlencoded' }],
      // No Content-Length: the limit counts the bytes as they arrive.
      ['chunked', new Blob([JSON.stringify({ name: 'too-big', description: big })]).stream(), { 'Content-Type': 'application/json' }],
    ];
    for (const [kind, body, headers] of bodies) {
      const res = await api('/projects', { method: 'POST', headers, body, ...(kind === 'chunked' ? { duplex: 'half' } : {}) } as RequestInit);
      expect([kind, res.status, res.headers.get('content-type')]).toEqual([kind, 413, 'application/json']);
      expect(await res.json()).toEqual(TOO_LARGE);
    }
    // Just under the limit is accepted: the limit is BODY_LIMIT, not something smaller.
    const fits = await api('/projects', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'fits', zz_padding: 'y'.repeat(60 * 1024) }) });
    expect(fits.status).toBe(201);
    expect(await countProjects()).toBe(before + 1);
  });

  it('answers a multipart body over BODY_LIMIT with 413 and a JSON body, and an upload over MAX_ATTACHMENT_SIZE with Workhorse’s 413', async () => {
    const before = await countProjects();
    const form = new FormData();
    form.append('name', 'too-big-multipart');
    form.append('avatar', new Blob([Buffer.alloc(70 * 1024, 1)], { type: 'image/png' }), 'big.png');
    const res = await api('/projects', { method: 'POST', body: form });
    expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([413, 'application/json', TOO_LARGE]);
    expect(await countProjects()).toBe(before);

    const upload = new FormData();
    upload.append('file', new Blob([Buffer.alloc(1024 * 1024 + 1, 2)]), 'big.bin');
    const tooBig = await api(`/projects/${projects.alpha!.id}/uploads`, { method: 'POST', body: upload });
    // Streamed uploads are refused as Workhorse refuses them (text/plain, see uploads-and-avatars.test.ts), never HTML.
    expect([tooBig.status, tooBig.headers.get('content-type'), await tooBig.text()]).toEqual([413, 'text/plain; charset=utf-8', 'Request Entity Too Large\n']);
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${stack.schemas.repoAdmin}.uploads`);
    expect(rows[0]!.n).toBe(0);
  });

  it('cuts off a client that sends its headers one byte at a time after HTTP_HEADERS_TIMEOUT_MS, with 408', async () => {
    const raw = await open();
    dribble(raw, `GET /api/v4/projects HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(100)}\r\n\r\n`, 200);
    const closedAfter = await raw.closed;
    expect(closedAfter).toBeGreaterThanOrEqual(HEADERS_MS - 100);
    expect(closedAfter).toBeLessThan(HEADERS_MS + 2500);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(raw.received()).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('cuts off a client that sends its body one byte at a time after HTTP_REQUEST_TIMEOUT_MS, and writes nothing', async () => {
    const before = await countProjects();
    const raw = await open();
    const body = JSON.stringify({ name: 'slow-body', description: 'z'.repeat(200) });
    raw.socket.write(`POST /api/v4/projects HTTP/1.1\r\nHost: localhost\r\nPRIVATE-TOKEN: ${stack.rootToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    dribble(raw, body, 250);
    const closedAfter = await raw.closed;
    expect(closedAfter).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(closedAfter).toBeLessThan(REQUEST_MS + 2500);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(await countProjects()).toBe(before);
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const raw = await open();
    raw.socket.write('GET /-/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const answered = Date.now();
    while (!raw.received().includes('\r\n\r\n')) await new Promise((r) => setTimeout(r, 10));
    expect(raw.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw.received()).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
    await raw.closed;
    const idle = Date.now() - answered;
    expect(idle).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 100);
    expect(idle).toBeLessThan(KEEP_ALIVE_MS + 2000);
  });

  it('keeps answering normal clients within 1 s while 200 slow clients hold connections, then drops the slow ones', async () => {
    const slow = await Promise.all(Array.from({ length: 200 }, () => open()));
    for (const raw of slow) dribble(raw, `GET /api/v4/projects HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'b'.repeat(200)}\r\n\r\n`, 300);
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const res = await api(`/projects/${projects.alpha!.id}`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { id: number }).id).toBe(projects.alpha!.id);
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 150));
    }
    const closed = await Promise.all(slow.map((raw) => raw.closed));
    expect(Math.max(...closed)).toBeLessThan(HEADERS_MS + 3000);
    expect(slow.every((raw) => /^HTTP\/1\.1 408 /.test(raw.received()))).toBe(true);
  });

  it('answers percent-encoded ids that try to leave their namespace with 404, never another project', async () => {
    const { alpha, beta } = projects as Required<typeof projects>;
    const secret = beta!.name;
    // Control: the paths name real projects, so a resolver that decoded and normalised them would find beta.
    expect((await api(`/projects/${encodeURIComponent(beta!.path_with_namespace)}`)).status).toBe(200);
    const ns = alpha!.path_with_namespace.split('/')[0]!;
    const cases = [
      ['/projects/..%2F..%2Fadmin', PROJECT_NOT_FOUND],
      [`/projects/${ns}%2F..%2F${ns}%2Fbeta`, PROJECT_NOT_FOUND],
      [`/projects/${ns}%2Falpha%2F..%2Fbeta`, PROJECT_NOT_FOUND],
      [`/projects/${ns}%2F.%2Fbeta`, PROJECT_NOT_FOUND],
      [`/projects/${ns}%252Fbeta`, PROJECT_NOT_FOUND], // double encoding is not decoded twice
      [`/projects/%2e%2e%2f${ns}%2fbeta`, PROJECT_NOT_FOUND],
      [`/projects/${alpha!.id}%2F..%2F${beta!.id}`, PROJECT_NOT_FOUND],
      [`/projects/${alpha!.id}%2F..%2F${beta!.id}/hooks`, PROJECT_NOT_FOUND],
      [`/projects/${alpha!.id}%2F..%2F${beta!.id}/members`, PROJECT_NOT_FOUND],
      [`/projects/${ns}%2Fbeta%00`, null], // a NUL: refused before any route (400 Bad Request)
    ] as const;
    for (const [path, body] of cases) {
      const res = await api(path);
      const text = await res.text();
      if (body === null) expect([path, res.status, text]).toEqual([path, 400, 'Bad Request']);
      else expect([path, res.status, JSON.parse(text)]).toEqual([path, 404, body]);
      expect(text).not.toContain(secret);
    }
    // Dot segments sent as they are (fetch would normalise them away): no route serves them.
    const raw = await rawRequest(`GET /api/v4/projects/${alpha!.id}/../${beta!.id} HTTP/1.1\r\nHost: localhost\r\nPRIVATE-TOKEN: ${stack.rootToken}\r\nConnection: close\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 404 /);
    expect(raw).not.toContain(`"id":${beta!.id}`);
  });

  it('never serves another repository through dot segments or encoded slashes in git HTTP paths', async () => {
    const { alpha, beta } = projects as Required<typeof projects>;
    const ns = alpha!.path_with_namespace.split('/')[0]!;
    const refs = (path: string) =>
      rawRequest(`GET ${path}/info/refs?service=git-upload-pack HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${basicRoot()}\r\nConnection: close\r\n\r\n`);
    // Control: beta's refs are served to root once its repository exists.
    let control = '';
    for (let i = 0; i < 50 && !/^HTTP\/1\.1 200 /.test(control); i++) {
      control = await refs(`/${beta!.path_with_namespace}.git`);
      if (!/^HTTP\/1\.1 200 /.test(control)) await new Promise((r) => setTimeout(r, 200));
    }
    expect(control).toMatch(/^HTTP\/1\.1 200 /);
    expect(control).toContain('# service=git-upload-pack');
    for (const path of [
      `/${ns}/alpha/../beta.git`, `/${ns}/../${ns}/beta.git`, `/${ns}/%2e%2e/${ns}/beta.git`, `/${ns}%2Falpha%2F..%2Fbeta.git`,
      `/${ns}/alpha%2F..%2Fbeta.git`, `/${ns}/.%2Fbeta.git`, `/${ns}%252Fbeta.git`, `/${ns}/alpha/..%2Fbeta.git`,
    ]) {
      const answer = await refs(path);
      expect([path, answer.slice(0, 12)]).toEqual([path, 'HTTP/1.1 404']);
      expect(answer).not.toContain('# service=git-upload-pack');
    }
  });
});
