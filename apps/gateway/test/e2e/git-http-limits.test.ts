import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { eventually, startStack, type RunningStack } from '@glp/testing';

const BUSY = 'GitLab is currently unable to handle this request due to load.';

/**
 * What one client may take of a storage's git over HTTP, through the gateway: an anonymous client's concurrent git
 * processes are counted by its address as the gateway sees it (a header it sends cannot make it someone else), and a
 * gzip bomb posted to git-upload-pack is answered 413 at once.
 */
describe('git over HTTP limits through the gateway', () => {
  let stack: RunningStack;
  let project: { id: number; path_with_namespace: string };
  let head: string;
  const held: http.ClientRequest[] = [];

  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json', ...init.headers } });
  const gitUrl = (action: string) => `${stack.url}/${project.path_with_namespace}.git/${action}`;
  const advertise = async (headers: Record<string, string> = {}) => {
    const res = await fetch(gitUrl('info/refs?service=git-upload-pack'), { headers });
    const text = await res.text();
    return { status: res.status, text: res.status === 200 ? '' : text, retryAfter: res.headers.get('retry-after') };
  };
  /** An anonymous fetch whose request never ends: git upload-pack runs in repo-admin while it is open. */
  const hold = async () => {
    const req = http.request(gitUrl('git-upload-pack'), { method: 'POST', headers: { 'Content-Type': 'application/x-git-upload-pack-request' } });
    req.on('error', () => undefined);
    req.on('response', (res) => res.resume());
    req.write(`0032want ${head}\n`);
    held.push(req);
    await new Promise((r) => setTimeout(r, 500));
    return req;
  };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_git_limits', env: { GIT_HTTP_CLIENT_CONCURRENCY: '1', GIT_HTTP_MAX_DECOMPRESSED_MB: '1' } });
    const res = await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'limits', visibility: 'public', initialize_with_readme: true }) });
    expect(res.status).toBe(201);
    project = (await res.json()) as typeof project;
    // The repository exists once repo-admin ran its create job.
    head = await eventually(async () => {
      const r = await fetch(gitUrl('info/refs?service=git-upload-pack'));
      const body = Buffer.from(await r.arrayBuffer()).toString('latin1');
      return r.status === 200 ? /([0-9a-f]{40}) HEAD/.exec(body)?.[1] : undefined;
    }, 30_000);
  }, 120_000);
  afterEach(() => {
    for (const req of held.splice(0)) req.destroy();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('counts anonymous clients by their address: a second git process is 429, a forwarded-for header changes nothing', async () => {
    await hold();
    expect(await advertise()).toEqual({ status: 429, text: BUSY, retryAfter: '10' });
    expect((await advertise({ 'X-Forwarded-For': '198.51.100.7', 'x-glp-client-address': '198.51.100.8' })).status).toBe(429);
    // A signed-in user is another client.
    const auth = `Basic ${Buffer.from(`root:${stack.rootToken}`).toString('base64')}`;
    expect((await advertise({ Authorization: auth })).status).toBe(200);
    for (const req of held.splice(0)) req.destroy();
    expect(await eventually(async () => (await advertise()).status === 200, 10_000)).toBe(true);
  });

  it('answers 413 to a gzip bomb posted to git-upload-pack, at once', async () => {
    const block = Buffer.from(`0032have ${'1'.repeat(40)}\n`.repeat(1024 * 1024));
    const member = gzipSync(block, { level: 9 });
    const body = Buffer.concat([gzipSync(`0032want ${head}\n0000`), ...Array.from({ length: 20 }, () => member)]);
    const started = Date.now();
    const res = await fetch(gitUrl('git-upload-pack'), {
      method: 'POST', body, signal: AbortSignal.timeout(30_000),
      headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' },
    });
    expect({ status: res.status, text: await res.text() }).toEqual({ status: 413, text: 'Request Entity Too Large' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
