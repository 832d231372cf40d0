import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { dropSchemas, eventually, freePort, infraFromEnv, REPO_ROOT, permanentRemovalPath, startStack, type RunningStack } from '@glp/testing';

const hashed = (id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
};
const listening = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});

/**
 * Two storages: a second repo-admin serves `shard-2` (its own disk, schema and consumer group). A project an
 * administrator creates on `shard-2` gets its repository there only; the gateway sends its git HTTP traffic and its
 * repo-admin calls (storage record, languages) to that shard, and the default storage keeps the others.
 */
describe('repository storages (repo-admin shards)', () => {
  let stack: RunningStack;
  let shard2: ChildProcess;
  let output = '';
  const root2 = mkdtempSync(path.join(os.tmpdir(), 'glp-shard2-'));
  let schema2 = '';
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json', ...init.headers } });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  beforeAll(async () => {
    const [grpcPort, httpPort, metricsPort] = await Promise.all([freePort(), freePort(), freePort()]);
    stack = await startStack({
      name: 'e2e_storages',
      env: { REPO_ADMIN_STORAGES: `shard-2=127.0.0.1:${grpcPort}|http://127.0.0.1:${httpPort}`, REPOSITORY_STORAGES: 'default,shard-2' },
    });
    schema2 = `${stack.schemas.repoAdmin}_shard2`;
    const infra = infraFromEnv();
    shard2 = spawn(process.execPath, ['apps/repo-admin/dist/main.js'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env, DATABASE_URL: infra.databaseUrl, KAFKA_BROKERS: infra.kafkaBrokers.join(','), KAFKA_TOPIC_PREFIX: stack.topicPrefix,
        NODE_ENV: 'test', LOG_LEVEL: 'warn', DB_SCHEMA: schema2, GRPC_PORT: String(grpcPort), HTTP_PORT: String(httpPort), HTTP_HOST: '127.0.0.1',
        METRICS_PORT: String(metricsPort), REPOSITORY_STORAGE: 'shard-2', STORAGE_ROOT: root2, JOB_POLL_MS: '200',
        IDENTITY_GRPC_ADDR: stack.grpcAddrs.identity, PROJECTS_GRPC_ADDR: stack.grpcAddrs.projects, KAFKA_CONSUMER_GROUP: `${stack.topicPrefix}shard-2`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    shard2.stdout!.on('data', (b: Buffer) => { output += b.toString(); });
    shard2.stderr!.on('data', (b: Buffer) => { output += b.toString(); });
    await eventually(async () => (await listening(grpcPort)) && (await listening(httpPort)), 30_000).catch((err: unknown) => {
      throw new Error(`shard-2 did not start: ${String(err)}\n${output}`);
    });
  }, 120_000);
  afterAll(async () => {
    if (shard2 && shard2.exitCode === null) {
      const exited = new Promise((r) => shard2.once('exit', r));
      shard2.kill('SIGTERM');
      await exited;
    }
    await stack?.stop();
    await dropSchemas(schema2).catch(() => undefined);
    rmSync(root2, { recursive: true, force: true });
  });

  it('keeps a shard-2 project’s repository on shard-2, and serves its git and repo-admin calls from there', async () => {
    const project = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'sharded', initialize_with_readme: true, repository_storage: 'shard-2' }) }), 201);
    expect(project).toMatchObject({ repository_storage: 'shard-2' });
    await eventually(async () => existsSync(path.join(root2, hashed(project.id), 'HEAD')), 30_000);
    expect(existsSync(path.join(stack.storageRoot, hashed(project.id)))).toBe(false);
    await eventually(async () => (await expectJson(await api(`/projects/${project.id}`), 200)).empty_repo === false, 30_000);

    // git over HTTP through the gateway reaches shard-2's repository.
    const work = mkdtempSync(path.join(os.tmpdir(), 'glp-shard2-clone-'));
    const url = `${stack.url.replace('http://', `http://oauth2:${stack.rootToken}@`)}/root/sharded.git`;
    execFileSync('git', ['clone', '-q', url, path.join(work, 'c')], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_GLOBAL: '/dev/null' } });
    expect(existsSync(path.join(work, 'c', 'README.md'))).toBe(true);
    rmSync(work, { recursive: true, force: true });

    expect(await expectJson(await api(`/projects/${project.id}/storage`), 200)).toMatchObject({ project_id: project.id, repository_storage: 'shard-2' });
    expect(await expectJson(await api(`/projects/${project.id}/languages`), 200)).toEqual({});

    // A project without a storage stays on default; unknown storages are refused, non-admins cannot choose.
    const plain = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'plain' }) }), 201);
    expect(plain.repository_storage).toBe('default');
    await eventually(async () => existsSync(path.join(stack.storageRoot, hashed(plain.id), 'HEAD')));
    expect(existsSync(path.join(root2, hashed(plain.id)))).toBe(false);
    expect(await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'x', repository_storage: 'nowhere' }) }), 400))
      .toEqual({ message: { repository_storage: ['is not included in the list'] } });

    // Deleting it removes the repository from shard-2's disk.
    await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE' }), 202);
    await expectJson(await api(permanentRemovalPath(project), { method: 'DELETE' }), 202);
    await eventually(async () => !existsSync(path.join(root2, hashed(project.id))), 30_000);
  });
});
