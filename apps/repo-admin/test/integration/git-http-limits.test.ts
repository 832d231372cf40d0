import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createPool, type Pool } from '@glp/db';
import { ANONYMOUS, createLogger, type Actor } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { BareRepository } from '../../src/disk/bare-repository';
import { gitRequestUrl } from '../../src/domain/git-http-rules';
import { hashedDiskPath } from '../../src/domain/hashed-storage';
import { startGitOverHttp } from '../../src/http/git-over-http';
import { migrateRepoAdmin } from '../../src/migrations';
import { signedGitHeaders } from './git-grants';

const SECRET = 'integration-test-actor-secret';
const user = (id: number, username: string): Actor => ({ kind: 'user', id, username, admin: false, scopes: ['api'] });
const alice = user(7, 'alice');
const bob = user(8, 'bob');
const carol = user(9, 'carol');
const BUSY = 'GitLab is currently unable to handle this request due to load.';

/**
 * What one client may take of a storage's git over HTTP, against the real git CLI: concurrent upload-pack/receive-pack
 * per client (the signed-in user, or the address of an anonymous one) and per storage, and gzip request bodies whose
 * decompressed size is capped.
 */
describe('git over HTTP limits in repo-admin', () => {
  const schema = uniqueName('it_git_limits');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-git-limits-'));
  let pool: Pool;
  let server: Awaited<ReturnType<typeof startGitOverHttp>>;
  let head: string;
  const held: http.ClientRequest[] = [];

  const signed = (method: string, url: string, as: Actor) => signedGitHeaders(SECRET, method, url, as);
  /** The ref advertisement (a short git upload-pack) as `as`: its status, body and Retry-After. */
  const advertise = async (as: Actor, headers: Record<string, string> = {}) => {
    const url = gitRequestUrl(1, 'git-upload-pack', true);
    const res = await fetch(`http://127.0.0.1:${server.port}${url}`, { headers: { ...signed('GET', url, as), ...headers } });
    const text = await res.text();
    return { status: res.status, text: res.status === 200 ? '' : text, retryAfter: res.headers.get('retry-after') };
  };
  /**
   * A fetch whose request never ends: git upload-pack runs, reading it, for as long as the client keeps the request open
   * (a slow client). Resolves once repo-admin holds it (a moment after its first bytes).
   */
  const hold = async (as: Actor, headers: Record<string, string> = {}) => {
    const url = gitRequestUrl(1, 'git-upload-pack', false);
    const req = http.request({
      host: '127.0.0.1', port: server.port, method: 'POST', path: url,
      headers: { ...signed('POST', url, as), 'Content-Type': 'application/x-git-upload-pack-request', ...headers },
    });
    let refused: number | undefined;
    req.on('error', () => undefined);
    req.on('response', (res) => {
      refused = res.statusCode;
      res.resume();
    });
    req.write(`0032want ${head}\n`);
    held.push(req);
    await new Promise((r) => setTimeout(r, 300));
    // A refusal answers at once; a held request has no answer while its body is open.
    if (refused !== undefined) throw new Error(`the request to hold was answered ${refused}`);
    return req;
  };
  const release = async (reqs: http.ClientRequest[]) => {
    await Promise.all(reqs.map((req) => new Promise<void>((resolve) => {
      req.once('response', (res) => res.on('end', resolve).on('close', resolve));
      req.end('00000009done\n');
    })));
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    const deps = {
      pool, identity: { getUser: jest.fn() }, topic: 'test.repo_admin', git: { gitBin: 'git', timeoutMs: 60_000 }, storageRoot: root,
      storage: 'default', logger: createLogger('git-limits-test', 'silent'),
    };
    server = await startGitOverHttp(deps, {
      host: '127.0.0.1', port: 0, actorSecret: SECRET, logger: deps.logger,
      limits: { storageConcurrency: 4, clientConcurrency: 2, maxDecompressedBytes: 1024 * 1024 },
    });
    const repo = new BareRepository(deps.git, path.join(root, hashedDiskPath(1)));
    await repo.init('main');
    await repo.commitFile('main', 'README.md', '# one\n', 'Initial commit', { name: 'Admin', email: 'admin@example.com' });
    head = execFileSync('git', ['-C', repo.dir, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
  });
  afterEach(() => {
    for (const req of held.splice(0)) req.destroy();
  });
  afterAll(async () => {
    await server?.stop(1000);
    await pool?.end();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
  });

  it('answers 429 to a client beyond its concurrent git processes, while other clients are served', async () => {
    const mine = [await hold(alice), await hold(alice)];
    const third = await advertise(alice);
    expect(third).toEqual({ status: 429, text: BUSY, retryAfter: expect.stringMatching(/^[1-9][0-9]*$/) });
    expect((await advertise(bob)).status).toBe(200);
    // Anonymous clients are told apart by their address (the gateway's `x-glp-client-address`).
    await release(mine);
    const anon = [await hold(ANONYMOUS, { 'x-glp-client-address': '203.0.113.5' }), await hold(ANONYMOUS, { 'x-glp-client-address': '203.0.113.5' })];
    expect((await advertise(ANONYMOUS, { 'x-glp-client-address': '203.0.113.5' })).status).toBe(429);
    expect((await advertise(ANONYMOUS, { 'x-glp-client-address': '203.0.113.6' })).status).toBe(200);
    await release(anon);
    // Slots come back when git is done.
    expect((await advertise(alice)).status).toBe(200);
    expect((await advertise(ANONYMOUS, { 'x-glp-client-address': '203.0.113.5' })).status).toBe(200);
  });

  it('answers 503 when the storage runs as many git processes as it may, whoever asks', async () => {
    const all = [await hold(alice), await hold(alice), await hold(bob), await hold(bob)];
    const res = await advertise(carol);
    expect(res).toEqual({ status: 503, text: BUSY, retryAfter: expect.stringMatching(/^[1-9][0-9]*$/) });
    await release(all);
    expect((await advertise(carol)).status).toBe(200);
  });

  it('answers 413 to a gzip bomb on git-upload-pack within moments, with bounded memory', async () => {
    // 1 GiB of `have` lines once inflated (git would read them all), sent as ~1 MiB of gzip: 20 gzip members of one
    // 50 MiB block each (a gzip stream may hold several members).
    const block = Buffer.from(`0032have ${'1'.repeat(40)}\n`.repeat(1024 * 1024));
    const member = gzipSync(block, { level: 9 });
    const body = Buffer.concat([gzipSync(`0032want ${head}\n0000`), ...Array.from({ length: 20 }, () => member)]);
    expect(body.length).toBeLessThan(4 * 1024 * 1024);
    const url = gitRequestUrl(1, 'git-upload-pack', false);
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${server.port}${url}`, {
      method: 'POST', body, signal: AbortSignal.timeout(30_000),
      headers: { ...signed('POST', url, alice), 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' },
    });
    const text = await res.text();
    expect({ status: res.status, text }).toEqual({ status: 413, text: 'Request Entity Too Large' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(128 * 1024 * 1024);
    // The client's slot was given back.
    expect((await advertise(alice)).status).toBe(200);
  });
});
