import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload, type PayloadType } from '@glp/events';
import { identityV1, projectEventsV1, repositoryEventsV1 } from '@glp/proto';
import { createLogger, DomainError } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import type { RepoAdminDeps } from '../../src/app/deps';
import { repositoryOf, runJob } from '../../src/app/repository-jobs';
import { hashedDiskPath } from '../../src/domain/hashed-storage';
import { onProjectCreated, onProjectDeleted, onProjectForked } from '../../src/events/project-consumer';
import { repoAdminService } from '../../src/grpc/repo-admin-service';
import { migrateRepoAdmin } from '../../src/migrations';
import { pendingJobs } from '../../src/store/jobs-store';
import { claimAny, TEST_JOBS } from './jobs-for-tests';

const { ImportState } = repositoryEventsV1;
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();

/** Repository jobs against PostgreSQL and the real git CLI: create (with a README), fork, remove, and their events. */
describe('repository jobs with real git', () => {
  const schema = uniqueName('it_repo_admin');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-repos-'));
  let pool: Pool;
  let deps: RepoAdminDeps;
  const identity = {
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      if (r.selector?.$case !== 'id' || r.selector.value !== 7) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: 7, username: 'alice', name: 'Alice Liddell', email: 'alice@example.com' }), view: 'admin' };
    }),
  };
  const created = (projectId: number, over: Partial<projectEventsV1.ProjectCreated> = {}) =>
    withTransaction(pool, (c) => onProjectCreated(c, projectEventsV1.ProjectCreated.fromPartial({ projectId, name: `p${projectId}`, creatorId: 7, ...over })));
  /** Runs every due job, as the worker would. */
  const drain = async () => {
    for (let job = await claimAny(pool); job; job = await claimAny(pool)) await runJob(deps, job);
  };
  const payloads = async <T>(type: PayloadType<T>) => {
    const { rows } = await pool.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE event_type = $1 ORDER BY id', [type.typeName]);
    return rows.map((r) => unpackPayload(decodeEnvelope(r.payload), type));
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    deps = {
      pool, identity, topic: 'test.repo_admin', git: { gitBin: 'git', timeoutMs: 30_000 }, storageRoot: root, storage: 'default',
      logger: createLogger('repo-admin-test', 'silent'), jobs: TEST_JOBS, jobMaxAttempts: 2,
    };
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
  });

  it('creates an empty bare repository in the hashed layout, on the asked default branch', async () => {
    await created(1, { defaultBranch: 'trunk' });
    await drain();
    const dir = path.join(root, hashedDiskPath(1));
    expect(git(dir, 'rev-parse', '--is-bare-repository')).toBe('true');
    expect(git(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/trunk');
    expect(git(dir, 'for-each-ref')).toBe('');
    expect(await payloads(EventTypes.RepositoryChanged)).toEqual([{ projectId: 1, empty: true, defaultBranch: 'trunk', pushedAt: undefined }]);
    const { repository } = await repoAdminService(deps).getRepository({ projectId: 1 }, undefined as never);
    expect(repository).toMatchObject({ projectId: 1, storage: 'default', diskPath: hashedDiskPath(1), empty: true, defaultBranch: 'trunk' });
  });

  it('commits README.md as the creator with initialize_with_readme; a replayed job changes nothing', async () => {
    await created(2, { name: 'Readme Demo', initializeWithReadme: true });
    await drain();
    const dir = path.join(root, hashedDiskPath(2));
    expect(git(dir, 'log', '--format=%an <%ae>|%s', 'main')).toBe('Alice Liddell <alice@example.com>|Initial commit');
    expect(git(dir, 'show', 'main:README.md')).toBe('# Readme Demo');
    const head = git(dir, 'rev-parse', 'main');
    // The same work again (a retried job): no second commit.
    await created(2, { name: 'Readme Demo', initializeWithReadme: true });
    await drain();
    expect(git(dir, 'rev-parse', 'main')).toBe(head);
    expect((await payloads(EventTypes.RepositoryChanged)).filter((e) => e.projectId === 2).map((e) => e.empty)).toEqual([false, false]);
  });

  it('copies a fork’s branches and tags from its source, reporting started then finished', async () => {
    const src = path.join(root, hashedDiskPath(2));
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'glp-work-'));
    execFileSync('git', ['clone', '-q', src, tmp]);
    git(tmp, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--allow-empty', '-m', 'second');
    git(tmp, 'tag', 'v1');
    git(tmp, 'push', '-q', 'origin', 'main', 'v1', 'main:feature');
    rmSync(tmp, { recursive: true, force: true });

    await created(3, { name: 'fork' });
    await withTransaction(pool, (c) => onProjectForked(c, projectEventsV1.ProjectForked.fromPartial({ projectId: 3, forkedFromProjectId: 2, copyRepository: true, branches: '' })));
    await drain();
    const dir = path.join(root, hashedDiskPath(3));
    expect(git(dir, 'for-each-ref', '--format=%(refname)').split('\n').sort()).toEqual(['refs/heads/feature', 'refs/heads/main', 'refs/tags/v1']);
    expect(git(dir, 'rev-parse', 'main')).toBe(git(src, 'rev-parse', 'main'));
    expect((await payloads(EventTypes.RepositoryImportStateChanged)).filter((e) => e.projectId === 3).map((e) => e.state))
      .toEqual([ImportState.IMPORT_STATE_STARTED, ImportState.IMPORT_STATE_FINISHED]);
    expect((await payloads(EventTypes.RepositoryChanged)).filter((e) => e.projectId === 3).pop()).toMatchObject({ empty: false, defaultBranch: 'main' });

    // Only the named branches.
    await created(4, { name: 'fork-main' });
    await withTransaction(pool, (c) => onProjectForked(c, projectEventsV1.ProjectForked.fromPartial({ projectId: 4, forkedFromProjectId: 2, copyRepository: true, branches: 'feature' })));
    await drain();
    expect(git(path.join(root, hashedDiskPath(4)), 'for-each-ref', '--format=%(refname)', 'refs/heads')).toBe('refs/heads/feature');
    // A linked (existing) project copies nothing.
    await withTransaction(pool, (c) => onProjectForked(c, projectEventsV1.ProjectForked.fromPartial({ projectId: 1, forkedFromProjectId: 2, copyRepository: false })));
    expect(await pendingJobs(pool)).toBe(0);
  });

  it('fails a fork for good when its source is gone, with FAILED and the reason', async () => {
    await created(5);
    await withTransaction(pool, (c) => onProjectForked(c, projectEventsV1.ProjectForked.fromPartial({ projectId: 5, forkedFromProjectId: 999, copyRepository: true })));
    await drain(); // attempt 1: the source may still come: retried later
    expect(await pendingJobs(pool)).toBe(1);
    await pool.query('UPDATE repository_jobs SET run_after = now()');
    await drain(); // attempt 2 = jobMaxAttempts
    expect(await pendingJobs(pool)).toBe(0);
    expect((await payloads(EventTypes.RepositoryImportStateChanged)).filter((e) => e.projectId === 5))
      .toEqual([{ projectId: 5, state: ImportState.IMPORT_STATE_STARTED, error: '' }, { projectId: 5, state: ImportState.IMPORT_STATE_FAILED, error: 'Failed to copy the repository' }]);
  });

  it('removes the repository and its row when the project is deleted; a second removal is a no-op', async () => {
    const dir = repositoryOf(deps, 1).dir;
    expect(existsSync(dir)).toBe(true);
    await withTransaction(pool, (c) => onProjectDeleted(c, projectEventsV1.ProjectDeleted.fromPartial({ projectId: 1 })));
    await withTransaction(pool, (c) => onProjectDeleted(c, projectEventsV1.ProjectDeleted.fromPartial({ projectId: 1 })));
    await drain();
    expect(existsSync(dir)).toBe(false);
    expect((await pool.query('SELECT count(*)::int AS n FROM repositories WHERE project_id = 1')).rows[0].n).toBe(0);
    expect(await pendingJobs(pool)).toBe(0);
  });

  it('runs a project’s jobs in order: a fork waits for its own create', async () => {
    await withTransaction(pool, async (c) => {
      await onProjectCreated(c, projectEventsV1.ProjectCreated.fromPartial({ projectId: 6, name: 'p6', creatorId: 7 }));
      await onProjectForked(c, projectEventsV1.ProjectForked.fromPartial({ projectId: 6, forkedFromProjectId: 2, copyRepository: true }));
    });
    const first = await claimAny(pool);
    expect(first?.kind).toBe('create');
    expect(await claimAny(pool)).toBeUndefined(); // the fork waits
    await runJob(deps, first!);
    await drain();
    expect(git(path.join(root, hashedDiskPath(6)), 'rev-parse', 'main')).toBe(git(path.join(root, hashedDiskPath(2)), 'rev-parse', 'main'));
  });
});
