import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { identityV1, projectEventsV1 } from '@glp/proto';
import { createLogger, DomainError } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import type { RepoAdminDeps } from '../../src/app/deps';
import { startJobWorker } from '../../src/app/job-worker';
import { hashedDiskPath } from '../../src/domain/hashed-storage';
import { onProjectCreated, onProjectForked } from '../../src/events/project-consumer';
import { migrateRepoAdmin } from '../../src/migrations';

/** Polls `check` every 100 ms until it holds or `ms` pass; answers whether it held. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A git server that never finishes answering: it accepts any request, sends the smart HTTP headers and then one byte every
 * two seconds, forever (the slow import of the attack). Counts the connections it holds open.
 */
async function startTricklingServer(): Promise<{ url: string; open(): number; closed(): number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let closed = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-advertisement', 'Cache-Control': 'no-cache' });
    res.write('0');
    const t = setInterval(() => res.write('0'), 2000);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
      closed += 1;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/slow/repo.git`,
    open: () => sockets.size,
    closed: () => closed,
    async stop() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * Repository jobs under load, against PostgreSQL and the real git CLI: imports from a server that trickles bytes must not
 * hold the storage's job worker, and each job kind stops at its own time limit.
 */
describe('repository job capacity', () => {
  const schema = uniqueName('it_job_capacity');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-job-capacity-'));
  let pool: Pool;
  let trickle: Awaited<ReturnType<typeof startTricklingServer>>;
  const identity = {
    getUser: jest.fn(async (_r: identityV1.GetUserRequest): Promise<{ user: identityV1.User; view: string }> => {
      throw new DomainError('not_found', 'User');
    }),
  };
  const depsWith = (jobs: RepoAdminDeps['jobs']): RepoAdminDeps => ({
    pool, identity, topic: 'test.repo_admin', storageRoot: root, storage: 'default', logger: createLogger('job-capacity-test', 'silent'),
    // git's own limit is the production default: only the job's time limit may end a trickling fetch early.
    git: { gitBin: 'git', timeoutMs: 600_000 },
    projects: {
      getImportSource: jest.fn(async () => ({ url: trickle.url, mirror: undefined })),
      getProject: jest.fn(async () => { throw new DomainError('not_found', 'Project'); }),
    } as unknown as RepoAdminDeps['projects'],
    remoteRules: { allowLocalNetwork: true, allowlist: [] },
    jobs, jobMaxAttempts: 5, mirrorIntervalMs: 60_000, maxAttachmentBytes: 1024,
  } as RepoAdminDeps);
  const queueImport = (projectId: number) =>
    withTransaction(pool, (c) => onProjectCreated(c, projectEventsV1.ProjectCreated.fromPartial({ projectId, name: `import${projectId}`, creatorId: 7, importSource: 'url' })));
  const queueCreate = (projectId: number) =>
    withTransaction(pool, (c) => onProjectCreated(c, projectEventsV1.ProjectCreated.fromPartial({ projectId, name: `p${projectId}`, creatorId: 8 })));
  const queueFork = (projectId: number, sourceProjectId: number) =>
    withTransaction(pool, (c) => onProjectForked(c, projectEventsV1.ProjectForked.fromPartial({ projectId, forkedFromProjectId: sourceProjectId, copyRepository: true })));
  const repositories = async (ids: number[]) =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM repositories WHERE project_id = ANY($1)', [ids])).rows[0]!.n;
  const job = async (projectId: number) =>
    (await pool.query<{ attempts: number; last_error: string | null; claimed: boolean }>(
      'SELECT attempts, last_error, coalesce(claimed_until > now(), false) AS claimed FROM repository_jobs WHERE project_id = $1', [projectId])).rows[0];

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 6 });
  });
  beforeEach(async () => {
    await pool.query('DELETE FROM repository_jobs');
    trickle = await startTricklingServer();
  });
  afterEach(async () => {
    await trickle.stop();
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps creating and forking other projects’ repositories while imports from a trickling server run', async () => {
    const deps = depsWith({ concurrency: 2, quickConcurrency: 2, quickTimeLimitMs: 60_000, slowTimeLimitMs: 120_000 });
    // Two slow imports first (as many as there are slots), then three other projects' creates and a fork of one of them.
    await queueImport(101);
    await queueImport(102);
    for (const id of [103, 104, 105]) await queueCreate(id);
    await queueFork(106, 103);
    const worker = startJobWorker(deps, deps.logger, 100);
    try {
      const created = await within(15_000, async () => (await repositories([103, 104, 105, 106])) === 4);
      expect(created).toBe(true);
      for (const id of [103, 104, 105, 106]) expect(existsSync(path.join(root, hashedDiskPath(id), 'HEAD'))).toBe(true);
      // The imports are still running (claimed, first attempt), holding their connections to the trickling server.
      expect(await job(101)).toMatchObject({ attempts: 1, claimed: true, last_error: null });
      expect(trickle.open()).toBeGreaterThanOrEqual(1);
    } finally {
      await trickle.stop(); // the fetches fail: the imports are released for a later attempt
      await worker.stop();
    }
  });

  it('stops an import at its kind’s time limit, killing the fetch, instead of after GIT_TIMEOUT_MS', async () => {
    const deps = depsWith({ concurrency: 2, quickConcurrency: 2, quickTimeLimitMs: 60_000, slowTimeLimitMs: 3_000 });
    await queueImport(201);
    const worker = startJobWorker(deps, deps.logger, 100);
    const started = Date.now();
    try {
      expect(await within(5_000, async () => trickle.open() > 0)).toBe(true);
      // The attempt ends at the limit (released for a retry with the reason kept) and git's connection is closed.
      const ended = await within(10_000, async () => (await job(201))?.last_error != null);
      expect(ended).toBe(true);
      expect(Date.now() - started).toBeLessThan(12_000);
      expect(await job(201)).toMatchObject({ attempts: 1, claimed: false, last_error: "the job's time limit (3000 ms) was reached" });
      expect(await within(3_000, async () => trickle.closed() > 0)).toBe(true);
    } finally {
      await trickle.stop();
      await worker.stop();
    }
  });

  it('stops the jobs in hand when the worker stops, releasing them for the next worker at once', async () => {
    const deps = depsWith({ concurrency: 2, quickConcurrency: 2, quickTimeLimitMs: 60_000, slowTimeLimitMs: 120_000 });
    await queueImport(301);
    const worker = startJobWorker(deps, deps.logger, 100);
    expect(await within(5_000, async () => trickle.open() > 0)).toBe(true);
    const started = Date.now();
    await worker.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await job(301)).toMatchObject({ attempts: 1, claimed: false, last_error: 'stopped by shutdown' });
    const { rows } = await pool.query<{ due: boolean }>('SELECT run_after <= now() AS due FROM repository_jobs WHERE project_id = 301');
    expect(rows[0]!.due).toBe(true);
    expect(await within(3_000, async () => trickle.closed() > 0)).toBe(true);
  });
});
