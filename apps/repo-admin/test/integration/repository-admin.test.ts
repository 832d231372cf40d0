import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload } from '@glp/events';
import { identityV1, projectEventsV1, projectsV1, type repoAdminV1 } from '@glp/proto';
import { createLogger, DomainError, type Actor } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import type { RepoAdminDeps } from '../../src/app/deps';
import { startHousekeeping } from '../../src/app/housekeeping';
import { repositoryLanguages } from '../../src/app/languages';
import { runJob } from '../../src/app/repository-jobs';
import { openSnapshot } from '../../src/app/snapshot';
import { refreshStatistics, reportStatistics } from '../../src/app/statistics';
import { hashedDiskPath, hashedWikiPath } from '../../src/domain/hashed-storage';
import { onProjectCreated } from '../../src/events/project-consumer';
import { migrateRepoAdmin } from '../../src/migrations';
import { pendingJobs } from '../../src/store/jobs-store';
import { claimAny, TEST_JOBS } from './jobs-for-tests';

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
const user = (id: number, admin = false): Actor => ({ kind: 'user', id, username: `u${id}`, admin, scopes: ['api'] });
const ref = (id: number): repoAdminV1.ProjectRef => ({ selector: { $case: 'id', value: id } });

/**
 * Repository administration against PostgreSQL and the real git CLI: snapshots (extracted with tar), languages of known
 * files, housekeeping jobs and their lease, and the statistics repo-admin reports to projects.
 */
describe('repository administration with real git', () => {
  const schema = uniqueName('it_repo_admin_adm');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-repos-adm-'));
  let pool: Pool;
  let deps: RepoAdminDeps;
  /** projects as the caller sees it: project 404 hidden; user 30 a Developer, user 40 a Maintainer everywhere. */
  const getProject = jest.fn(async (req: projectsV1.GetProjectRequest, opts?: { actor?: Actor }) => {
    const id = req.selector?.$case === 'id' ? req.selector.value : 0;
    if (id === 404 || id === 0) throw new DomainError('not_found', 'Project');
    const actorId = opts?.actor?.id ?? 0;
    return { project: projectsV1.Project.fromPartial({ id, callerAccessLevel: actorId === 30 ? 30 : actorId === 40 ? 40 : 0 }) };
  });
  const identity = {
    getUser: jest.fn(async () => ({ user: identityV1.User.fromPartial({ id: 7, username: 'alice', name: 'Alice', email: 'alice@example.com' }), view: 'admin' })),
  };
  const drain = async () => {
    for (let job = await claimAny(pool); job; job = await claimAny(pool)) await runJob(deps, job);
  };
  const create = async (projectId: number, readme = true) => {
    await withTransaction(pool, (c) => onProjectCreated(c, projectEventsV1.ProjectCreated.fromPartial({ projectId, name: `p${projectId}`, creatorId: 7, initializeWithReadme: readme })));
    await drain();
    return path.join(root, hashedDiskPath(projectId));
  };
  /** Commits files into the bare repository through a temporary clone, as a push would. */
  const commitFiles = (bare: string, files: Record<string, string | Buffer>, message = 'files') => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'glp-work-'));
    try {
      execFileSync('git', ['clone', '-q', bare, work]);
      for (const [name, content] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
        writeFileSync(path.join(work, name), content);
      }
      git(work, 'add', '-A');
      git(work, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', message);
      git(work, 'push', '-q', 'origin', 'HEAD:main');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  };
  const extract = async (tar: Readable) => {
    const into = mkdtempSync(path.join(os.tmpdir(), 'glp-snap-'));
    const child = spawn('tar', ['-x', '-C', into], { stdio: ['pipe', 'ignore', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await pipeline(tar, child.stdin);
    expect(await exited).toBe(0);
    return into;
  };
  /** Gitaly's picks at the top (`branches/` is there when git init made it): never config, hooks, info or description. */
  const expectSnapshotTop = (dir: string) =>
    expect(readdirSync(dir).filter((f) => f !== 'branches').sort()).toEqual(['HEAD', 'objects', 'refs']);
  const statisticsEvents = async (projectId: number) => {
    const { rows } = await pool.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE event_type = $1 ORDER BY id', [EventTypes.RepositoryStatisticsChanged.typeName]);
    return rows.map((r) => unpackPayload(decodeEnvelope(r.payload), EventTypes.RepositoryStatisticsChanged)).filter((e) => e.projectId === projectId);
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    deps = {
      pool, identity, projects: { getProject, getImportSource: jest.fn() } as unknown as RepoAdminDeps['projects'],
      remoteRules: { allowLocalNetwork: false, allowlist: [] } as unknown as RepoAdminDeps['remoteRules'],
      topic: 'test.repo_admin', git: { gitBin: 'git', timeoutMs: 30_000 }, storageRoot: root, storage: 'default',
      logger: createLogger('repo-admin-test', 'silent'), jobs: TEST_JOBS, jobMaxAttempts: 2,
    };
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
  });

  it('snapshots the bare repository as an uncompressed tar: HEAD, refs and objects, never config or hooks', async () => {
    const dir = await create(1);
    commitFiles(dir, { 'a.txt': 'hello\n' });
    const tar = await openSnapshot(deps, user(1, true), ref(1), false);
    const out = await extract(tar!);
    try {
      expectSnapshotTop(out);
      expect(existsSync(path.join(out, 'refs', 'heads', 'main'))).toBe(true);
      // The extracted directory is a repository with the same history.
      expect(execFileSync('git', ['--git-dir', out, 'log', '--format=%s', 'main'], { encoding: 'utf8' }).trim()).toBe('files\nInitial commit');
      execFileSync('git', ['--git-dir', out, 'fsck', '--no-dangling', '--no-progress']);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    // Packed after a gc: the pack and its index come along.
    git(dir, 'gc', '-q');
    const packed = await extract((await openSnapshot(deps, user(1, true), ref(1), false))!);
    try {
      expect(readdirSync(path.join(packed, 'objects', 'pack')).map((f) => path.extname(f)).sort()).toEqual(['.idx', '.pack']);
      expect(existsSync(path.join(packed, 'packed-refs'))).toBe(true);
    } finally {
      rmSync(packed, { recursive: true, force: true });
    }
  });

  it('refuses snapshots to all but administrators, before looking the project up; 404 for a hidden project; nothing for a missing repository', async () => {
    getProject.mockClear();
    await expect(openSnapshot(deps, user(40), ref(1), false)).rejects.toMatchObject({ kind: 'forbidden' });
    expect(getProject).not.toHaveBeenCalled();
    await expect(openSnapshot(deps, user(1, true), ref(404), false)).rejects.toMatchObject({ kind: 'not_found', message: 'Project' });
    expect(await openSnapshot(deps, user(1, true), ref(1), true)).toBeUndefined(); // no wiki repository
    expect(await openSnapshot(deps, user(1, true), ref(999), false)).toBeUndefined(); // no repository on disk

    execFileSync('git', ['init', '-q', '--bare', path.join(root, hashedWikiPath(1))]);
    const wiki = await extract((await openSnapshot(deps, user(1, true), ref(1), true))!);
    try {
      expectSnapshotTop(wiki);
    } finally {
      rmSync(wiki, { recursive: true, force: true });
    }
  });

  it('counts the languages of the default branch by bytes, as GitLab: programming and markup only, no docs or vendored files', async () => {
    const dir = await create(2);
    expect(await repositoryLanguages(deps, user(30), ref(2))).toEqual([]); // README.md only: prose
    commitFiles(dir, {
      'src/app.ts': 'x'.repeat(600), 'src/lib.rb': 'y'.repeat(300), 'web/index.html': 'z'.repeat(100),
      'README.md': 'm'.repeat(5000), 'docs/guide.js': 'd'.repeat(5000), 'node_modules/dep/index.js': 'n'.repeat(5000), 'package.json': '{}',
    });
    expect(await repositoryLanguages(deps, user(30), ref(2))).toEqual([
      { name: 'TypeScript', share: 60 }, { name: 'Ruby', share: 30 }, { name: 'HTML', share: 10 },
    ]);
    const empty = await create(3, false);
    expect(existsSync(empty)).toBe(true);
    expect(await repositoryLanguages(deps, user(30), ref(3))).toEqual([]);
    await expect(repositoryLanguages(deps, user(30), ref(404))).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('queues housekeeping for Maintainers, holds the lease while it is queued, and reports statistics when done', async () => {
    const dir = await create(4);
    commitFiles(dir, { 'a.go': 'package a\n' });
    await expect(startHousekeeping(deps, user(30), ref(4), 'eager')).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(startHousekeeping(deps, user(40), ref(404), 'eager')).rejects.toMatchObject({ kind: 'not_found' });
    const jid = await startHousekeeping(deps, user(40), ref(4), 'eager');
    expect(jid).toMatch(/^[0-9a-f]{24}$/);
    await expect(startHousekeeping(deps, user(40), ref(4), 'prune')).rejects.toMatchObject({
      kind: 'conflict', message: 'Somebody already triggered housekeeping for this resource in the past 1440 minutes',
    });
    // Concurrent requests: exactly one more takes the lease once it is free.
    await drain();
    expect(git(dir, 'count-objects', '-v').match(/^count: (\d+)/m)?.[1]).toBe('0'); // gc packed the loose objects
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => startHousekeeping(deps, user(40), ref(4), 'prune')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await pendingJobs(pool)).toBe(1);
    const before = (await statisticsEvents(4)).length;
    await drain();
    expect(await pendingJobs(pool)).toBe(0);
    expect((await statisticsEvents(4)).length).toBe(before + 1);
    await expect(startHousekeeping(deps, user(1, true), ref(4), 'gc')).rejects.toMatchObject({ kind: 'bad_request' });
  });

  it('reports statistics after a create and on demand: commit count of the default branch and bytes on disk', async () => {
    const dir = await create(5);
    const [afterCreate] = await statisticsEvents(5);
    expect(afterCreate).toMatchObject({ projectId: 5, commitCount: 1, wikiSize: 0, lfsObjectsSize: 0, uploadsSize: 0 });
    expect(afterCreate!.repositorySize).toBeGreaterThan(0);
    commitFiles(dir, { 'big.bin': Buffer.alloc(200_000, 7) }, 'second');
    await expect(refreshStatistics(deps, user(30), ref(5))).rejects.toMatchObject({ kind: 'forbidden' });
    await refreshStatistics(deps, user(40), ref(5));
    const latest = (await statisticsEvents(5)).pop()!;
    expect(latest.commitCount).toBe(2);
    expect(latest.repositorySize).toBeGreaterThan(afterCreate!.repositorySize);
    // No repository on disk: zeros, never an error.
    expect(await reportStatistics(deps, 998)).toEqual({ projectId: 998, commitCount: 0, repositorySize: 0, wikiSize: 0, lfsObjectsSize: 0, uploadsSize: 0 });
  });
});
