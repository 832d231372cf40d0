import { randomUUID } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { pushRulesV1 } from '@glp/proto';
import {
  ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, createGrpcClient, GIT_GRANT_ID_HEADER, createLogger, keepingRequestBytes, registry, requestBytesOf, signActor, verifyActor, type Actor,
} from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { BareRepository } from '../../src/disk/bare-repository';
import { hashedDiskPath } from '../../src/domain/hashed-storage';
import { signedGitMethod } from '../../src/domain/git-http-rules';
import { startGitOverHttp } from '../../src/http/git-over-http';
import { migrateRepoAdmin } from '../../src/migrations';

const run = promisify(execFile);
const SECRET = 'integration-test-actor-secret';
const ZERO = '0'.repeat(40);
const alice: Actor = { kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api'] };
const gitEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const who = ['-c', 'user.name=Alice Liddell', '-c', 'user.email=alice@example.com'];
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...who, ...args], { encoding: 'utf8', env: gitEnv }).trim();
const tryGit = async (dir: string, ...args: string[]) => {
  try {
    const { stdout, stderr } = await run('git', ['-C', dir, ...who, ...args], { env: gitEnv });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
};

type Checks = pushRulesV1.GetPushChecksResponse;
const NO_RULE: Checks = { active: false, needsCommits: false, needsFiles: false, needsSignatures: false, maxFileSizeBytes: 0 };
const ALL: Checks = { active: true, needsCommits: true, needsFiles: true, needsSignatures: true, maxFileSizeBytes: 1024 * 1024 };

/**
 * The push-rules check in repo-admin's pre-receive hook against a fake PushRulesService (real gRPC, real git, real
 * PostgreSQL): what it sends (the new commits once each, oldest first, in batches, with files and sizes only when
 * asked), that the first denial refuses the push with push-rules' message and nothing lands, and that it fails closed.
 */
describe('push rules in the pre-receive check', () => {
  const schema = uniqueName('it_push_rules');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-push-rules-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-push-rules-work-'));
  let pool: Pool;
  let server: Awaited<ReturnType<typeof startGitOverHttp>>;
  let proxy: http.Server;
  let proxyUrl: string;
  let fake: Server;
  let client: ReturnType<typeof createGrpcClient<pushRulesV1.PushRulesServiceClient>>;

  // The fake push-rules: answers from these, records what it was asked and as whom.
  let checks: Checks | 'unavailable' = NO_RULE;
  let decide: (req: pushRulesV1.CheckPushRequest, n: number) => pushRulesV1.CheckPushResponse = () => ({ allowed: true, message: '' });
  let checkCalls: pushRulesV1.CheckPushRequest[] = [];
  let getCalls: { projectId: number; actor: Actor }[] = [];
  const actorOf = (call: ServerUnaryCall<unknown, unknown>, method: string) =>
    verifyActor(String(call.metadata.get(ACTOR_HEADER)[0]), String(call.metadata.get(ACTOR_SIGNATURE_HEADER)[0]), SECRET,
      `/gitlab.push_rules.v1.PushRulesService/${method}`, 300, Date.now(), requestBytesOf(call.request));

  const repoDir = (id: number) => path.join(root, hashedDiskPath(id));
  const remote = (id: number) => `${proxyUrl}/projects/${id}.git`;
  const reset = (c: Checks | 'unavailable') => {
    checks = c;
    checkCalls = [];
    getCalls = [];
    decide = () => ({ allowed: true, message: '' });
  };
  /** A local clone of project `id` (main with the initial commit). */
  const cloneOf = async (id: number, name: string) => {
    const dir = path.join(work, name);
    expect((await tryGit(work, 'clone', '-q', remote(id), dir)).code).toBe(0);
    return dir;
  };
  const commit = (dir: string, file: string, content: string, message: string, extra: string[] = []) => {
    writeFileSync(path.join(dir, file), content);
    git(dir, 'add', '-A');
    git(dir, ...extra, 'commit', '-q', '-m', message);
    return git(dir, 'rev-parse', 'HEAD');
  };
  const checkSeconds = async () => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'repo_admin_pre_receive_check_seconds') as
      { values: { metricName?: string; labels: Record<string, string | number>; value: number }[] } | undefined;
    return metric?.values.filter((v) => v.metricName?.endsWith('_count')) ?? [];
  };

  beforeAll(async () => {
    fake = new Server();
    // The fake plays only what repo-admin calls (GetPushChecks, CheckPush); grpc-js answers the others itself.
    fake.addService(keepingRequestBytes(pushRulesV1.PushRulesServiceService), {
      getPushChecks: (call: ServerUnaryCall<pushRulesV1.GetPushChecksRequest, Checks>, cb: sendUnaryData<Checks>) => {
        getCalls.push({ projectId: call.request.projectId, actor: actorOf(call, 'GetPushChecks') });
        if (checks === 'unavailable') return cb({ code: status.UNAVAILABLE, details: 'down' });
        cb(null, checks);
      },
      checkPush: (call: ServerUnaryCall<pushRulesV1.CheckPushRequest, pushRulesV1.CheckPushResponse>, cb: sendUnaryData<pushRulesV1.CheckPushResponse>) => {
        expect(actorOf(call, 'CheckPush')).toMatchObject({ kind: 'system', username: 'repo-admin' });
        checkCalls.push(call.request);
        cb(null, decide(call.request, checkCalls.length));
      },
    });
    const port = await new Promise<number>((resolve, reject) => fake.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
    client = createGrpcClient(pushRulesV1.PushRulesServiceClient, `127.0.0.1:${port}`, { actorSecret: SECRET, defaultDeadlineMs: 5000 });

    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    const identity = { getUser: async () => ({ user: { id: 7, username: 'alice', name: 'Alice Liddell' } as never, view: 'admin' }) };
    const deps = {
      pool, identity, pushRules: client, topic: 'test.repo_admin', git: { gitBin: 'git', timeoutMs: 30_000 }, storageRoot: root, storage: 'default',
      logger: createLogger('push-rules-test', 'silent'),
    };
    server = await startGitOverHttp(deps, { host: '127.0.0.1', port: 0, actorSecret: SECRET, logger: deps.logger });
    proxy = http.createServer((req, res) => {
      const grantId = randomUUID();
      const { payload, signature } = signActor(alice, SECRET, signedGitMethod(req.method!, req.url!, grantId));
      const headers = { ...req.headers, [ACTOR_HEADER]: payload, [ACTOR_SIGNATURE_HEADER]: signature, [GIT_GRANT_ID_HEADER]: grantId };
      const up = http.request({ host: '127.0.0.1', port: server.port, method: req.method, path: req.url, headers }, (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    for (const id of [1, 2, 3, 4]) {
      const repo = new BareRepository(deps.git, repoDir(id));
      await repo.init('main');
      await repo.commitFile('main', 'README.md', '# readme\n', 'Initial commit', { name: 'Admin', email: 'admin@example.com' });
    }
  });
  afterAll(async () => {
    proxy?.close();
    await server?.stop(1000);
    client?.close();
    fake?.forceShutdown();
    await pool?.end();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('a project without a rule: one GetPushChecks as repo-admin, no CheckPush, the push lands; the metric says inactive', async () => {
    reset(NO_RULE);
    const before = (await checkSeconds()).find((v) => v.labels.push_rules_active === 'false' && v.labels.outcome === 'allowed')?.value ?? 0;
    const dir = await cloneOf(1, 'none');
    const sha = commit(dir, 'a.txt', 'a', 'Add a');
    expect(await tryGit(dir, 'push', '-q', 'origin', 'main')).toMatchObject({ code: 0 });
    expect(git(repoDir(1), 'rev-parse', 'main')).toBe(sha);
    expect(getCalls).toEqual([{ projectId: 1, actor: expect.objectContaining({ kind: 'system', username: 'repo-admin' }) }]);
    expect(checkCalls).toEqual([]);
    const after = (await checkSeconds()).find((v) => v.labels.push_rules_active === 'false' && v.labels.outcome === 'allowed')?.value ?? 0;
    expect(after).toBe(before + 1);
  });

  it('sends every new commit once, oldest first, with authors, committers, signatures, changed files and blob sizes', async () => {
    reset(ALL);
    const dir = await cloneOf(2, 'all');
    const c1 = commit(dir, 'id_rsa', 'x'.repeat(3000), 'First\n\nwith a body', ['-c', 'user.name=Carol', '-c', 'user.email=carol@example.com']);
    git(dir, 'mv', 'id_rsa', 'renamed.key');
    const c2 = commit(dir, 'big.bin', 'y'.repeat(5000), 'Second');
    git(dir, 'checkout', '-q', '-b', 'feature');
    git(dir, 'rm', '-q', 'big.bin');
    git(dir, 'commit', '-q', '-m', 'Third');
    const c3 = git(dir, 'rev-parse', 'HEAD');
    // main and feature share c1 and c2; the initial commit is in the repository already.
    expect(await tryGit(dir, 'push', '-q', 'origin', 'main', 'feature')).toMatchObject({ code: 0 });
    expect(checkCalls).toHaveLength(1);
    const [req] = checkCalls;
    expect(req!.projectId).toBe(2);
    expect(req!.defaultBranch).toBe('main');
    expect(req!.pusher).toEqual({ userId: 7, username: 'alice', name: 'Alice Liddell' });
    expect(req!.changes.map((c) => c.ref).sort()).toEqual(['refs/heads/feature', 'refs/heads/main']);
    expect(req!.commits.map((c) => c.id)).toEqual([c1, c2, c3]);
    expect(req!.commits[0]).toEqual({
      id: c1, message: 'First\n\nwith a body\n', authorName: 'Carol', authorEmail: 'carol@example.com', committerName: 'Carol', committerEmail: 'carol@example.com',
      signed: false, files: [{ path: 'id_rsa', oldPath: '', status: 'added', size: 3000 }],
    });
    expect(req!.commits[1]!.files).toEqual([
      { path: 'big.bin', oldPath: '', status: 'added', size: 5000 },
      { path: 'renamed.key', oldPath: 'id_rsa', status: 'renamed', size: 3000 },
    ]);
    expect(req!.commits[2]!.files).toEqual([{ path: 'big.bin', oldPath: '', status: 'deleted', size: 0 }]);

    // Without needs_files: no paths at all. And a signed commit (a gpgsig header written by hand) says so.
    reset({ ...ALL, needsFiles: false, maxFileSizeBytes: 0 });
    const tree = git(dir, 'rev-parse', 'HEAD^{tree}');
    const raw = `tree ${tree}\nparent ${c3}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nSigned one\n`;
    const signed = execFileSync('git', ['-C', dir, 'hash-object', '-t', 'commit', '-w', '--stdin'], { input: raw, encoding: 'utf8', env: gitEnv }).trim();
    expect(await tryGit(dir, 'push', '-q', 'origin', `${signed}:refs/heads/feature`)).toMatchObject({ code: 0 });
    expect(checkCalls.map((r) => r.commits)).toEqual([[expect.objectContaining({ id: signed, signed: true, message: 'Signed one\n', files: [] })]]);
  });

  it('the first denial refuses the push with its message (nothing lands) and stops the walk', async () => {
    reset(ALL);
    const dir = await cloneOf(3, 'deny');
    const before = git(repoDir(3), 'rev-parse', 'main');
    // 450 new commits written with fast-import: batches of 200, 200 and 50.
    const lines: string[] = [];
    for (let i = 1; i <= 450; i++) {
      const msg = `Commit ${i}`;
      lines.push('commit refs/heads/main', `committer Bulk <bulk@example.com> ${1_700_000_000 + i} +0000`, `data ${msg.length}`, msg, ...(i === 1 ? ['from refs/heads/main^0'] : []), `M 100644 inline f${i % 7}.txt`, `data ${String(i).length}`, String(i));
    }
    execFileSync('git', ['-C', dir, 'fast-import', '--quiet'], { input: `${lines.join('\n')}\n`, env: gitEnv });
    decide = (req) => (req.commits.some((c) => c.message === 'Commit 300') ? { allowed: false, message: "Commit message does not follow the pattern '^JIRA-'" } : { allowed: true, message: '' });
    const res = await tryGit(dir, 'push', 'origin', 'main');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("remote: GitLab: Commit message does not follow the pattern '^JIRA-'");
    expect(res.stderr).toContain('[remote rejected] main -> main (pre-receive hook declined)');
    expect(git(repoDir(3), 'rev-parse', 'main')).toBe(before);
    expect(checkCalls.map((r) => r.commits.length)).toEqual([200, 200]);
    expect(checkCalls[0]!.commits[0]!.message).toBe('Commit 1');
    expect(checkCalls.every((r) => r.changes.length === 1 && r.changes[0]!.ref === 'refs/heads/main')).toBe(true);

    // All allowed: 200 + 200 + 50, and the branch moves.
    reset(ALL);
    expect(await tryGit(dir, 'push', '-q', 'origin', 'main')).toMatchObject({ code: 0 });
    expect(checkCalls.map((r) => r.commits.length)).toEqual([200, 200, 50]);
    expect(git(repoDir(3), 'rev-list', '--count', 'main')).toBe('451');
  });

  it('a push without new commits is one CheckPush with the ref changes alone (a tag, a branch deletion)', async () => {
    reset(ALL);
    const dir = await cloneOf(4, 'refs-only');
    const head = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'tag', 'v1');
    git(dir, 'branch', 'other');
    expect(await tryGit(dir, 'push', '-q', 'origin', 'v1', 'other')).toMatchObject({ code: 0 });
    expect(checkCalls).toHaveLength(1);
    expect(checkCalls[0]!.commits).toEqual([]);
    expect(checkCalls[0]!.changes.map((c) => [c.ref, c.oldRev, c.newRev]).sort()).toEqual([['refs/heads/other', ZERO, head], ['refs/tags/v1', ZERO, head]]);

    reset(ALL);
    decide = () => ({ allowed: false, message: 'You cannot delete a tag' });
    const res = await tryGit(dir, 'push', 'origin', ':refs/tags/v1');
    expect(res.stderr).toContain('remote: GitLab: You cannot delete a tag');
    expect(checkCalls).toHaveLength(1);
    expect(checkCalls[0]!.changes).toEqual([{ ref: 'refs/tags/v1', oldRev: head, newRev: ZERO }]);
    expect(git(repoDir(4), 'rev-parse', 'refs/tags/v1')).toBe(head);
  });

  it('fails closed: push-rules unavailable refuses the push, nothing lands; the metric says refused', async () => {
    reset('unavailable');
    const dir = path.join(work, 'refs-only');
    const before = git(repoDir(4), 'rev-parse', 'main');
    commit(dir, 'late.txt', 'late', 'Late');
    const refusedBefore = (await checkSeconds()).filter((v) => v.labels.outcome === 'refused').reduce((n, v) => n + v.value, 0);
    const res = await tryGit(dir, 'push', 'origin', 'HEAD:main');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('remote: GitLab: Internal API unreachable');
    expect(git(repoDir(4), 'rev-parse', 'main')).toBe(before);
    expect(getCalls).toHaveLength(1);
    const refusedAfter = (await checkSeconds()).filter((v) => v.labels.outcome === 'refused').reduce((n, v) => n + v.value, 0);
    expect(refusedAfter).toBe(refusedBefore + 1);

    // CheckPush failing is the same.
    reset(ALL);
    decide = () => {
      throw new Error('boom');
    };
    const again = await tryGit(dir, 'push', 'origin', 'HEAD:main');
    expect(again.stderr).toContain('remote: GitLab: Internal API unreachable');
    expect(git(repoDir(4), 'rev-parse', 'main')).toBe(before);
  });
});
