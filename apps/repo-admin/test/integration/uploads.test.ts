import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { identityV1, projectEventsV1, projectsV1, repoAdminV1 } from '@glp/proto';
import { ANONYMOUS, createLogger, DomainError, type Actor } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { openAvatarDownload, pruneAvatars, storeAvatar } from '../../src/app/avatars';
import type { RepoAdminDeps } from '../../src/app/deps';
import { runJob } from '../../src/app/repository-jobs';
import { createUpload, deleteUpload, listUploads, openUploadDownload } from '../../src/app/uploads';
import { projectAvatarsDir, projectUploadsDir, UPLOADS_TMP_DIR } from '../../src/domain/upload-rules';
import { onProjectDeleted } from '../../src/events/project-consumer';
import { migrateRepoAdmin } from '../../src/migrations';
import { claimAny, TEST_JOBS } from './jobs-for-tests';

/** Uploads and avatars against PostgreSQL and a real storage directory, with projects' answers played by a fake. */
describe('uploads and avatars on disk', () => {
  const schema = uniqueName('it_uploads');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-uploads-'));
  let pool: Pool;
  let deps: RepoAdminDeps;
  const alice: Actor = { kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api'] };
  const dev: Actor = { kind: 'user', id: 8, username: 'dev', admin: false, scopes: ['api'] };
  /** Project id → the access level of each user id (absent: cannot read), and the avatar projects records. */
  const projects = new Map<number, { levels: Record<number, number>; avatar: string; creatorId: number }>();
  const projectsClient = {
    getImportSource: jest.fn(),
    getProject: jest.fn(async (r: projectsV1.GetProjectRequest, opts?: { actor?: Actor }) => {
      const id = r.selector?.$case === 'id' ? r.selector.value : 0;
      const p = projects.get(id);
      const level = p?.levels[opts?.actor?.id ?? 0];
      if (!p || level === undefined) throw new DomainError('not_found', 'Project');
      return { project: projectsV1.Project.fromPartial({ id, callerAccessLevel: level, creatorId: p.creatorId, settings: { avatar: p.avatar } }) };
    }),
  };
  const identity = {
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      if (r.selector?.$case === 'id' && r.selector.value === 7) return { user: identityV1.User.fromPartial({ id: 7, username: 'alice', name: 'Alice' }), view: 'admin' };
      throw new DomainError('not_found', 'User');
    }),
  };
  const ref = (id: number): repoAdminV1.ProjectRef => ({ selector: { $case: 'id', value: id } });
  async function* chunks(...parts: (string | Buffer)[]): AsyncGenerator<Buffer> {
    for (const part of parts) yield Buffer.isBuffer(part) ? part : Buffer.from(part);
  }
  const files = (dir: string): string[] => {
    const abs = path.join(root, dir);
    if (!existsSync(abs)) return [];
    return readdirSync(abs, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.join(d.parentPath, d.name));
  };
  const rows = async (projectId: number) => (await pool.query('SELECT count(*)::int AS n FROM uploads WHERE project_id = $1', [projectId])).rows[0].n as number;
  const read = async (opened: { open(): NodeJS.ReadableStream }) => {
    const out: Buffer[] = [];
    for await (const c of opened.open() as AsyncIterable<Buffer>) out.push(c);
    return Buffer.concat(out).toString();
  };
  const kind = async (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof DomainError ? `${e.kind}:${e.message}` : String(e)));

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    deps = {
      pool, identity, projects: projectsClient, remoteRules: { allowLocalNetwork: false, allowlist: [] }, topic: 'test.repo_admin',
      git: { gitBin: 'git', timeoutMs: 30_000 }, storageRoot: root, storage: 'default', logger: createLogger('uploads-test', 'silent'),
      jobs: TEST_JOBS, jobMaxAttempts: 2, maxAttachmentBytes: 1024,
    } as RepoAdminDeps;
    projects.set(1, { levels: { 7: 40, 8: 30, 0: 0 }, avatar: '', creatorId: 7 });
    projects.set(2, { levels: { 7: 40 }, avatar: '', creatorId: 7 });
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
  });

  it('stores an upload under the project’s hashed uploads directory, streams it back and lists it for Maintainers', async () => {
    const row = await createUpload(deps, dev, { project: ref(1), fileName: '../../secret plan.txt', contentType: 'text/plain' }, chunks('hello ', 'world'));
    expect(row).toMatchObject({ project_id: 1, filename: 'secret_plan.txt', size: 11, content_type: 'text/plain', uploaded_by: 8 });
    expect(row.secret).toMatch(/^[0-9a-f]{32}$/);
    expect(files(projectUploadsDir(1))).toEqual([path.join(root, projectUploadsDir(1), row.secret, 'secret_plan.txt')]);

    const bySecret = await openUploadDownload(deps, ANONYMOUS, { project: ref(1), uploadId: 0, secret: row.secret, fileName: 'secret_plan.txt' });
    expect(bySecret.size).toBe(11);
    expect(await read(bySecret)).toBe('hello world');
    // By id: Maintainers only.
    expect(await kind(openUploadDownload(deps, dev, { project: ref(1), uploadId: row.id, secret: '', fileName: '' }))).toBe('forbidden:');
    expect(await read(await openUploadDownload(deps, alice, { project: ref(1), uploadId: row.id, secret: '', fileName: '' }))).toBe('hello world');

    const listed = await listUploads(deps, alice, { project: ref(1), page: 1, perPage: 20 });
    expect(listed.total).toBe(1);
    expect(listed.uploads[0]).toMatchObject({ id: row.id, fileName: 'secret_plan.txt', size: 11 });
    expect(listed.uploads[0]!.uploadedBy).toBeUndefined(); // user 8 is unknown to identity
    expect(await kind(listUploads(deps, dev, { project: ref(1), page: 1, perPage: 20 }))).toBe('forbidden:');
  });

  it('refuses what it must, leaving nothing behind: too large, no reader, no caller, names that lead elsewhere', async () => {
    const before = await rows(1);
    expect(await kind(createUpload(deps, alice, { project: ref(1), fileName: 'big.bin', contentType: '' }, chunks(Buffer.alloc(1000), Buffer.alloc(25)))))
      .toBe('rejected:Request Entity Too Large');
    expect(await kind(createUpload(deps, dev, { project: ref(2), fileName: 'a.txt', contentType: '' }, chunks('x')))).toBe('not_found:Project');
    expect(await kind(createUpload(deps, ANONYMOUS, { project: ref(1), fileName: 'a.txt', contentType: '' }, chunks('x')))).toBe('unauthenticated:');
    expect(await rows(1)).toBe(before);
    expect(files(UPLOADS_TMP_DIR)).toEqual([]);
    expect(files(projectUploadsDir(2))).toEqual([]);
    // Exactly the limit is allowed.
    const exact = await createUpload(deps, alice, { project: ref(1), fileName: 'exact.bin', contentType: '' }, chunks(Buffer.alloc(1024)));
    expect(exact.size).toBe(1024);

    for (const fileName of ['..', '../x', 'a/b']) {
      expect(await kind(openUploadDownload(deps, alice, { project: ref(1), uploadId: 0, secret: exact.secret, fileName }))).toBe('not_found:');
    }
    expect(await kind(openUploadDownload(deps, alice, { project: ref(1), uploadId: 0, secret: '../..', fileName: 'exact.bin' }))).toBe('not_found:');
    expect(await kind(openUploadDownload(deps, alice, { project: ref(1), uploadId: 999_999, secret: '', fileName: '' }))).toBe('not_found:record');
  });

  it('deletes by id or by name (Maintainers), with GitLab’s answers for a missing one', async () => {
    const row = await createUpload(deps, alice, { project: ref(1), fileName: 'gone.txt', contentType: '' }, chunks('x'));
    const file = path.join(root, projectUploadsDir(1), row.secret, 'gone.txt');
    expect(existsSync(file)).toBe(true);
    expect(await kind(deleteUpload(deps, dev, { project: ref(1), uploadId: row.id, secret: '', fileName: '' }))).toBe('forbidden:');
    await deleteUpload(deps, alice, { project: ref(1), uploadId: 0, secret: row.secret, fileName: 'gone.txt' });
    expect(existsSync(file)).toBe(false);
    expect(existsSync(path.dirname(file))).toBe(false);
    expect(await kind(deleteUpload(deps, alice, { project: ref(1), uploadId: 0, secret: row.secret, fileName: 'gone.txt' })))
      .toBe("bad_request:The resource that you are attempting to access does not exist or you don't have permission to perform this action.");
    expect(await kind(deleteUpload(deps, alice, { project: ref(1), uploadId: row.id, secret: '', fileName: '' }))).toBe('not_found:record');
  });

  it('stores avatars beside the current one, serves only the one projects records, and prunes the others', async () => {
    expect(await kind(storeAvatar(deps, dev, { project: ref(2), fileName: 'a.png', contentType: 'image/png' }, chunks('x')))).toBe('not_found:Project');
    projects.get(1)!.levels[9] = 30;
    const stranger: Actor = { kind: 'user', id: 9, username: 'eve', admin: false, scopes: ['api'] };
    expect(await kind(storeAvatar(deps, stranger, { project: ref(1), fileName: 'a.png', contentType: 'image/png' }, chunks('x')))).toBe('forbidden:');
    expect(await kind(storeAvatar(deps, alice, { project: ref(1), fileName: 'big.png', contentType: 'image/png' }, chunks(Buffer.alloc(200 * 1024 + 1)))))
      .toBe('invalid:avatar is too big (should be at most 200 KB)');

    const first = await storeAvatar(deps, alice, { project: ref(1), fileName: 'one.png', contentType: 'image/png' }, chunks('first'));
    projects.get(1)!.avatar = first;
    const second = await storeAvatar(deps, alice, { project: ref(1), fileName: 'one.png', contentType: 'image/png' }, chunks('second'));
    expect(second).not.toBe(first);
    expect(files(projectAvatarsDir(1))).toHaveLength(2);
    // Only the recorded avatar is served, and only under its own name.
    expect(await read(await openAvatarDownload(deps, ANONYMOUS, { project: ref(1), fileName: 'one.png' }))).toBe('first');
    expect(await kind(openAvatarDownload(deps, ANONYMOUS, { project: ref(1), fileName: 'other.png' }))).toBe('not_found:');
    projects.get(1)!.avatar = second;
    expect(await read(await openAvatarDownload(deps, ANONYMOUS, { project: ref(1), fileName: 'one.png' }))).toBe('second');
    await pruneAvatars(deps, alice, ref(1));
    expect(files(projectAvatarsDir(1)).map((f) => readFileSync(f, 'utf8'))).toEqual(['second']);
    projects.get(1)!.avatar = '';
    await pruneAvatars(deps, alice, ref(1));
    expect(files(projectAvatarsDir(1))).toEqual([]);
    expect(await kind(openAvatarDownload(deps, ANONYMOUS, { project: ref(1), fileName: 'one.png' }))).toBe('not_found:');
  });

  it('removes a deleted project’s uploads and avatars, files and rows, with its repository', async () => {
    const avatar = await storeAvatar(deps, alice, { project: ref(1), fileName: 'last.png', contentType: 'image/png' }, chunks('a'));
    projects.get(1)!.avatar = avatar;
    expect(await rows(1)).toBeGreaterThan(0);
    await withTransaction(pool, (c) => onProjectDeleted(c, projectEventsV1.ProjectDeleted.fromPartial({ projectId: 1 })));
    for (let job = await claimAny(pool); job; job = await claimAny(pool)) await runJob(deps, job);
    expect(await rows(1)).toBe(0);
    expect(existsSync(path.join(root, projectUploadsDir(1)))).toBe(false);
    expect(existsSync(path.join(root, projectAvatarsDir(1)))).toBe(false);
  });
});
