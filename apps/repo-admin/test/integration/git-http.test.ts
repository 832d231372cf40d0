import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createPool, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload, type PayloadType } from '@glp/events';
import { identityV1 } from '@glp/proto';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, createLogger, DomainError, GIT_GRANT_ID_HEADER, signActor, systemActor, type Actor } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import type { RepoAdminDeps } from '../../src/app/deps';
import { listCommits } from '../../src/app/list-commits';
import { BareRepository } from '../../src/disk/bare-repository';
import { PUSH_ID_HEADER } from '../../src/disk/git-hooks';
import { hashedDiskPath } from '../../src/domain/hashed-storage';
import { gitRequestUrl, signedGitMethod } from '../../src/domain/git-http-rules';
import { parsePktLines } from '../../src/domain/pkt-line';
import { startGitOverHttp } from '../../src/http/git-over-http';
import { migrateRepoAdmin } from '../../src/migrations';
import { signedGitHeaders } from './git-grants';

const run = promisify(execFile);
const SECRET = 'integration-test-actor-secret';
const ZERO = '0'.repeat(40);
const alice: Actor = { kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api'] };
const who = ['-c', 'user.name=Alice Liddell', '-c', 'user.email=alice@example.com'];
const gitEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: gitEnv }).trim();
/** git that may fail: its exit code and both outputs. */
const tryGit = async (dir: string, ...args: string[]) => {
  try {
    const { stdout, stderr } = await run('git', ['-C', dir, ...args], { env: gitEnv });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
};

/**
 * Git over HTTP in repo-admin against PostgreSQL and the real git CLI: a local proxy plays the gateway's part (it signs
 * each request as `actor` for its method and URL). Clones in protocol v0 and v2 (gzip request bodies too), pushes with
 * their Push/TagPush/RepositoryChanged events, the first push to an empty repository, a push the pre-receive check
 * refuses, and requests without a valid grant.
 */
describe('git over HTTP in repo-admin', () => {
  const schema = uniqueName('it_git_http');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-git-http-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-git-work-'));
  let pool: Pool;
  let server: Awaited<ReturnType<typeof startGitOverHttp>>;
  let proxy: http.Server;
  let proxyUrl: string;
  let actor: Actor = alice;
  const identity = {
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      if (r.selector?.$case !== 'id' || r.selector.value !== 7) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: 7, username: 'alice', name: 'Alice Liddell', email: 'alice@private.example', publicEmail: 'alice@example.com' }), view: 'admin' };
    }),
  };
  const payloads = async <T>(type: PayloadType<T>) => {
    const { rows } = await pool.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE event_type = $1 ORDER BY id', [type.typeName]);
    return rows.map((r) => unpackPayload(decodeEnvelope(r.payload), type));
  };
  const repoDir = (id: number) => path.join(root, hashedDiskPath(id));
  const remote = (id: number) => `${proxyUrl}/projects/${id}.git`;
  const signed = (method: string, url: string, as: Actor = alice) => signedGitHeaders(SECRET, method, url, as);

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    const deps = {
      pool, identity, topic: 'test.repo_admin', git: { gitBin: 'git', timeoutMs: 30_000 }, storageRoot: root, storage: 'default',
      logger: createLogger('git-http-test', 'silent'),
    };
    server = await startGitOverHttp(deps, { host: '127.0.0.1', port: 0, actorSecret: SECRET, logger: deps.logger, repositoryWaitMs: 1500 });
    // The gateway's part: sign each request for its method and URL, stream both ways.
    proxy = http.createServer((req, res) => {
      const up = http.request({ host: '127.0.0.1', port: server.port, method: req.method, path: req.url, headers: { ...req.headers, ...signed(req.method!, req.url!, actor) } }, (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;

    // Project 1: a README commit on main. Project 2: empty, HEAD on main.
    const one = new BareRepository(deps.git, repoDir(1));
    await one.init('main');
    await one.commitFile('main', 'README.md', '# one\n', 'Initial commit', { name: 'Admin', email: 'admin@example.com' });
    await new BareRepository(deps.git, repoDir(2)).init('main');
  });
  afterAll(async () => {
    proxy?.close();
    await server?.stop(1000);
    await pool?.end();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('advertises refs with the service announcement (v0) and without it (v2)', async () => {
    const url = gitRequestUrl(1, 'git-upload-pack', true);
    const v0 = await fetch(`http://127.0.0.1:${server.port}${url}`, { headers: signed('GET', url) });
    expect(v0.status).toBe(200);
    expect(v0.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(v0.headers.get('cache-control')).toBe('no-cache');
    const { packets } = parsePktLines(Buffer.from(await v0.arrayBuffer()));
    expect(packets[0]).toEqual({ kind: 'data', data: Buffer.from('# service=git-upload-pack\n') });
    expect(packets[1]).toEqual({ kind: 'flush' });
    expect(packets[2]!.kind === 'data' && packets[2]!.data.toString()).toContain(`${git(repoDir(1), 'rev-parse', 'main')} HEAD\0`);

    const v2 = await fetch(`http://127.0.0.1:${server.port}${url}`, { headers: { ...signed('GET', url), 'Git-Protocol': 'version=2' } });
    const first = parsePktLines(Buffer.from(await v2.arrayBuffer())).packets[0];
    expect(first).toEqual({ kind: 'data', data: Buffer.from('version 2\n') });
  });

  it('clones in protocol v0 and v2, with gzip request bodies', async () => {
    for (const version of ['0', '2']) {
      const dir = path.join(work, `clone-v${version}`);
      const res = await tryGit(work, '-c', `protocol.version=${version}`, 'clone', '-q', remote(1), dir);
      expect(res).toMatchObject({ code: 0 });
      expect(git(dir, 'log', '--format=%s', 'main')).toBe('Initial commit');
      expect(git(dir, 'show', 'HEAD:README.md')).toBe('# one');
    }
    // A fetch request beyond 1 KiB is gzipped by git: 60 branches to want.
    const seed = path.join(work, 'clone-v0');
    for (let i = 0; i < 60; i++) git(seed, 'branch', `b${String(i).padStart(2, '0')}-${'x'.repeat(30)}`);
    expect((await tryGit(seed, 'push', '-q', 'origin', '--all')).code).toBe(0);
    const many = path.join(work, 'many');
    expect((await tryGit(work, '-c', 'protocol.version=0', 'clone', '-q', '--mirror', remote(1), many)).code).toBe(0);
    expect(git(many, 'for-each-ref', '--format=%(refname)', 'refs/heads').split('\n')).toHaveLength(61);
    // And a hand-made gzip upload-pack request is decoded.
    const url = gitRequestUrl(1, 'git-upload-pack', false);
    const want = `0032want ${git(repoDir(1), 'rev-parse', 'main')}\n00000009done\n`;
    const res = await fetch(`http://127.0.0.1:${server.port}${url}`, {
      method: 'POST', body: gzipSync(want), headers: { ...signed('POST', url), 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    expect(Buffer.from(await res.arrayBuffer()).includes(Buffer.from('PACK'))).toBe(true);
  });

  it('pushes a branch and a tag: Push and TagPush with the commits and files, then RepositoryChanged', async () => {
    const dir = path.join(work, 'clone-v2');
    const before = git(dir, 'rev-parse', 'main');
    git(dir, 'checkout', '-q', '-b', 'feature');
    git(dir, ...who, 'commit', '-q', '--allow-empty', '-m', 'Empty step');
    execFileSync('sh', ['-c', 'echo hello > new.txt && echo changed >> README.md'], { cwd: dir });
    git(dir, 'add', '.');
    git(dir, ...who, 'commit', '-q', '-m', 'Add new.txt\n\nAnd change the README.');
    git(dir, ...who, 'tag', '-a', 'v1.0', '-m', 'Release 1.0');
    const after = git(dir, 'rev-parse', 'feature');
    const res = await tryGit(dir, 'push', 'origin', 'feature', 'v1.0');
    expect(res.code).toBe(0);
    expect(git(repoDir(1), 'rev-parse', 'feature')).toBe(after);

    const pushes = (await payloads(EventTypes.Push)).filter((p) => p.ref === 'refs/heads/feature');
    expect(pushes).toHaveLength(1);
    const push = pushes[0]!;
    expect(push).toMatchObject({
      projectId: 1, before: ZERO, after, checkoutSha: after, totalCommitsCount: 2,
      pusher: { userId: 7, username: 'alice', name: 'Alice Liddell', email: 'alice@example.com' },
    });
    // Not on the default branch: the two new commits, oldest first.
    expect(push.commits.map((c) => c.title)).toEqual(['Empty step', 'Add new.txt']);
    expect(push.commits[1]).toMatchObject({
      id: after, message: 'Add new.txt\n\nAnd change the README.\n', authorName: 'Alice Liddell', authorEmail: 'alice@example.com',
      added: ['new.txt'], modified: ['README.md'], removed: [],
    });
    expect(push.commits[1]!.timestamp).toBeInstanceOf(Date);
    expect(push.pushedAt).toBeInstanceOf(Date);
    const [tag] = (await payloads(EventTypes.TagPush)).filter((p) => p.ref === 'refs/tags/v1.0');
    expect(tag).toMatchObject({ projectId: 1, before: ZERO, after: git(dir, 'rev-parse', 'v1.0'), checkoutSha: after, totalCommitsCount: 1 });
    // refs_in_push: GitLab counts each (ref type, action) group of a push; one branch created, one tag created.
    expect([push.refsInPush, tag!.refsInPush]).toEqual([1, 1]);
    // The 60 branches created by one push (the clone test): each Push says 60 (over push_event_hooks_limit).
    const many = (await payloads(EventTypes.Push)).filter((p) => p.ref.startsWith('refs/heads/b'));
    expect(many).toHaveLength(60);
    expect(new Set(many.map((p) => p.refsInPush))).toEqual(new Set([60]));
    expect(tag!.commits.map((c) => c.id)).toEqual([after]);
    const changed = (await payloads(EventTypes.RepositoryChanged)).filter((e) => e.projectId === 1).pop();
    expect(changed).toMatchObject({ projectId: 1, empty: false, defaultBranch: 'main' });
    expect(changed!.pushedAt).toBeInstanceOf(Date);
    // The envelope names the pusher.
    const { rows } = await pool.query<{ payload: Buffer }>(`SELECT payload FROM outbox WHERE event_type = $1 ORDER BY id DESC LIMIT 1`, [EventTypes.Push.typeName]);
    expect(decodeEnvelope(rows[0]!.payload)).toMatchObject({ aggregateKey: 'project:1', actor: { userId: 7, username: 'alice' } });

    // Moving main: the commits between old and new; deleting the branch: no commits.
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--ff-only', 'feature');
    expect((await tryGit(dir, 'push', '-q', 'origin', 'main', ':feature')).code).toBe(0);
    const all = await payloads(EventTypes.Push);
    expect(all.filter((p) => p.ref === 'refs/heads/main').pop()).toMatchObject({ before, after, totalCommitsCount: 2 });
    expect(all.filter((p) => p.ref === 'refs/heads/feature').pop()).toMatchObject({ before: after, after: ZERO, checkoutSha: '', commits: [], totalCommitsCount: 0 });
    expect([all.filter((p) => p.ref === 'refs/heads/main').pop()!.refsInPush, all.filter((p) => p.ref === 'refs/heads/feature').pop()!.refsInPush]).toEqual([1, 1]);
  });

  it('refuses a push the pre-receive check refuses, as git reports hook failures', async () => {
    const dir = path.join(work, 'clone-v2');
    const main = git(repoDir(1), 'rev-parse', 'main');
    const countBefore = (await payloads(EventTypes.Push)).length;
    const res = await tryGit(dir, 'push', 'origin', ':main');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('remote: GitLab: The default branch of a project cannot be deleted.');
    expect(res.stderr).toContain('[remote rejected] main (pre-receive hook declined)');
    expect(git(repoDir(1), 'rev-parse', 'main')).toBe(main);
    expect((await payloads(EventTypes.Push)).length).toBe(countBefore);
  });

  it('makes the first pushed branch the default branch of an empty repository', async () => {
    const dir = path.join(work, 'fresh');
    git(work, 'init', '-q', '-b', 'trunk', dir);
    execFileSync('sh', ['-c', 'echo a > a.txt'], { cwd: dir });
    git(dir, 'add', '.');
    git(dir, ...who, 'commit', '-q', '-m', 'first');
    git(dir, ...who, 'commit', '-q', '--allow-empty', '-m', 'second');
    expect((await tryGit(dir, 'push', '-q', remote(2), 'trunk')).code).toBe(0);
    expect(git(repoDir(2), 'symbolic-ref', 'HEAD')).toBe('refs/heads/trunk');
    const [push] = (await payloads(EventTypes.Push)).filter((p) => p.projectId === 2);
    // Creating the default branch reports its whole history.
    expect(push).toMatchObject({ ref: 'refs/heads/trunk', totalCommitsCount: 2 });
    expect(push!.commits.map((c) => c.title)).toEqual(['first', 'second']);
    expect(push!.commits[0]).toMatchObject({ added: ['a.txt'], modified: [], removed: [] });
    expect((await payloads(EventTypes.RepositoryChanged)).filter((e) => e.projectId === 2).pop()).toMatchObject({ empty: false, defaultBranch: 'trunk' });
    expect((await pool.query('SELECT empty, default_branch FROM repositories WHERE project_id = 2')).rows).toEqual([{ empty: false, default_branch: 'trunk' }]);
    // And the statistics follow the push.
    expect((await payloads(EventTypes.RepositoryStatisticsChanged)).filter((e) => e.projectId === 2).pop()).toMatchObject({ commitCount: 2 });
  });

  it('waits for a repository being created (a push right after POST /projects), up to repositoryWaitMs', async () => {
    const url = gitRequestUrl(4, 'git-upload-pack', true);
    const started = Date.now();
    const created = new Promise<void>((resolve) => setTimeout(() => void new BareRepository({ gitBin: 'git', timeoutMs: 30_000 }, repoDir(4)).init('main').then(() => resolve()), 400));
    const res = await fetch(`http://127.0.0.1:${server.port}${url}`, { headers: signed('GET', url) });
    await created;
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# service=git-upload-pack');
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('answers 404 for a project without a repository, and refuses requests without a valid grant', async () => {
    const url = gitRequestUrl(3, 'git-upload-pack', true);
    const started = Date.now();
    const missing = await fetch(`http://127.0.0.1:${server.port}${url}`, { headers: signed('GET', url) });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('A repository for this project does not exist yet.');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500); // it waited for one, then gave up

    const clone = gitRequestUrl(1, 'git-upload-pack', true);
    const push = gitRequestUrl(1, 'git-receive-pack', true);
    expect((await fetch(`http://127.0.0.1:${server.port}${clone}`)).status).toBe(401);
    // A clone's grant is not a push's, nor another project's.
    expect((await fetch(`http://127.0.0.1:${server.port}${push}`, { headers: signed('GET', clone) })).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${server.port}${gitRequestUrl(2, 'git-upload-pack', true)}`, { headers: signed('GET', clone) })).status).toBe(401);
    // An expired grant.
    const old = signActor(alice, SECRET, signedGitMethod('GET', clone, 'grant-0001'), Date.now() - 120_000);
    const oldHeaders = { [ACTOR_HEADER]: old.payload, [ACTOR_SIGNATURE_HEADER]: old.signature, [GIT_GRANT_ID_HEADER]: 'grant-0001' };
    expect((await fetch(`http://127.0.0.1:${server.port}${clone}`, { headers: oldHeaders })).status).toBe(401);
    // A grant without its id.
    const { [GIT_GRANT_ID_HEADER]: _id, ...noId } = signed('GET', clone);
    expect((await fetch(`http://127.0.0.1:${server.port}${clone}`, { headers: noId })).status).toBe(401);
    // Not an endpoint.
    expect((await fetch(`http://127.0.0.1:${server.port}/projects/1.git/HEAD`, { headers: signed('GET', '/projects/1.git/HEAD') })).status).toBe(404);
  });

  it('takes a grant for one request only: replayed within its minute it is refused, and a fetch\'s grant is no push\'s', async () => {
    const fetchUrl = gitRequestUrl(1, 'git-upload-pack', false);
    const want = `0032want ${git(repoDir(1), 'rev-parse', 'main')}\n00000009done\n`;
    const post = (url: string, headers: Record<string, string>, body: string) =>
      fetch(`http://127.0.0.1:${server.port}${url}`, { method: 'POST', body, headers: { ...headers, 'Content-Type': 'application/x-git-upload-pack-request' } });
    const grant = signed('POST', fetchUrl);
    const first = await post(fetchUrl, grant, want);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    // The same captured headers again, with another body: refused.
    const replayed = await post(fetchUrl, grant, `0032want ${'0'.repeat(40)}\n00000009done\n`);
    expect(replayed.status).toBe(401);
    expect(await replayed.text()).toBe('Unauthorized');
    // A fetch's grant (fresh, never used) replayed as a push.
    const push = await post(gitRequestUrl(1, 'git-receive-pack', false), signed('POST', fetchUrl), '0000');
    expect(push.status).toBe(401);
    expect(git(repoDir(1), 'for-each-ref', '--count=1', 'refs/heads/main')).not.toBe('');
  });

  it('refuses a push whose grant was not for pushing, and hook calls for no running push', async () => {
    actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
    try {
      const dir = path.join(work, 'clone-v2');
      git(dir, ...who, 'commit', '-q', '--allow-empty', '-m', 'anonymous attempt');
      const res = await tryGit(dir, 'push', 'origin', 'HEAD:refs/heads/anon');
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain('remote: GitLab: You are not allowed to push code to this project.');
      expect(git(repoDir(1), 'for-each-ref', 'refs/heads/anon')).toBe('');
    } finally {
      actor = alice;
    }
    // The hooks' socket refuses a call for no running push.
    const status = await new Promise<number>((resolve) => {
      const req = http.request({ socketPath: server.hookSocket, method: 'POST', path: '/hooks/pre-receive', headers: { [PUSH_ID_HEADER]: 'nope' } }, (r) => resolve(r.statusCode!));
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  it('lists the newest commits of a ref for system actors (ListCommits), newest first with their files', async () => {
    const deps = { pool, git: { gitBin: 'git', timeoutMs: 30_000 }, storageRoot: root } as unknown as RepoAdminDeps;
    const hooks = systemActor('webhook-dispatcher');
    // Project 1's main after the pushes above: 'Add new.txt', 'Empty step', 'Initial commit' (+ the refused anonymous commit was never pushed).
    const head = await listCommits(deps, hooks, { projectId: 1, ref: '', limit: 2 });
    expect(head.ref).toBe('refs/heads/main');
    expect(head.commits.map((c) => c.title)).toEqual(['Add new.txt', 'Empty step']);
    expect(head.commits[0]).toMatchObject({
      id: git(repoDir(1), 'rev-parse', 'main'), authorName: 'Alice Liddell', authorEmail: 'alice@example.com', added: ['new.txt'], modified: ['README.md'], removed: [],
    });
    expect(head.commits[0]!.timestamp).toBeInstanceOf(Date);
    const all = await listCommits(deps, hooks, { projectId: 1, ref: 'main', limit: 0 });
    expect(all.commits.map((c) => c.title)).toEqual(['Add new.txt', 'Empty step', 'Initial commit']);
    expect(all.commits[2]).toMatchObject({ added: ['README.md'], modified: [], removed: [] });
    // A tag by its short name and its full name (an annotated tag peels to its commit).
    expect((await listCommits(deps, hooks, { projectId: 1, ref: 'v1.0', limit: 1 })).ref).toBe('refs/tags/v1.0');
    expect((await listCommits(deps, hooks, { projectId: 1, ref: 'refs/tags/v1.0', limit: 1 })).commits.map((c) => c.title)).toEqual(['Add new.txt']);
    // An empty repository with a row: nothing, ref ''.
    await new BareRepository({ gitBin: 'git', timeoutMs: 30_000 }, repoDir(4)).init('main');
    await pool.query("INSERT INTO repositories (project_id, storage, disk_path, empty) VALUES (4, 'default', $1, true)", [hashedDiskPath(4)]);
    expect(await listCommits(deps, hooks, { projectId: 4, ref: '', limit: 5 })).toEqual({ ref: '', commits: [] });
    // Unknown project, unknown or malformed ref: NOT_FOUND; users: PERMISSION_DENIED.
    expect(await listCommits(deps, hooks, { projectId: 3, ref: '', limit: 5 }).catch((e: DomainError) => e.kind)).toBe('not_found');
    expect(await listCommits(deps, hooks, { projectId: 1, ref: 'nope', limit: 5 }).catch((e: DomainError) => e.kind)).toBe('not_found');
    expect(await listCommits(deps, hooks, { projectId: 1, ref: '--all', limit: 5 }).catch((e: DomainError) => e.kind)).toBe('not_found');
    expect(await listCommits(deps, hooks, { projectId: 1, ref: 'ma*', limit: 5 }).catch((e: DomainError) => e.kind)).toBe('not_found');
    expect(await listCommits(deps, alice, { projectId: 1, ref: '', limit: 5 }).catch((e: DomainError) => e.kind)).toBe('forbidden');
    expect(await listCommits(deps, { ...alice, admin: true }, { projectId: 1, ref: '', limit: 5 }).catch((e: DomainError) => e.kind)).toBe('forbidden');
  });
});
