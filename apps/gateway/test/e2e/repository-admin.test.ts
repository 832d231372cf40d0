import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool, type Pool } from '@glp/db';
import { eventually, infraFromEnv, startStack, type RunningStack } from '@glp/testing';

const hashed = (id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}`;
};
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();

/**
 * Repository administration through the whole stack with the real repo-admin: the snapshot tar (streamed, extracted with
 * tar), the storage record, languages of known files, housekeeping with GitLab's lease, and statistics that follow a
 * commit. Files reach the repositories with the git CLI, straight into the bare repository on repo-admin's storage.
 */
describe('repository administration endpoints', () => {
  let stack: RunningStack;
  let db: Pool;
  const tokens: Record<string, string> = {};
  const userIds: Record<string, number> = {};
  let app: { id: number; created_at: string };
  let priv: { id: number };

  const api = (p: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${p}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const repoDir = (id: number) => path.join(stack.storageRoot, `${hashed(id)}.git`);
  /** Commits files into a project's bare repository through a temporary clone, as a push would land them. */
  const commitFiles = (id: number, files: Record<string, string>, message: string) => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'glp-e2e-work-'));
    try {
      execFileSync('git', ['clone', '-q', repoDir(id), work], { stdio: 'ignore' });
      for (const [name, content] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
        writeFileSync(path.join(work, name), content);
      }
      git(work, 'add', '-A');
      git(work, '-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', 'commit', '-q', '-m', message);
      git(work, 'push', '-q', 'origin', 'HEAD:main');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  };
  const untar = async (body: ArrayBuffer) => {
    const into = mkdtempSync(path.join(os.tmpdir(), 'glp-e2e-snap-'));
    const child = spawn('tar', ['-x', '-C', into], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b) => (err += b));
    const code = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end(Buffer.from(body));
    expect({ code: await code, err }).toEqual({ code: 0, err: '' });
    return into;
  };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_repo_adm' });
    db = createPool({ url: infraFromEnv().databaseUrl, schema: stack.schemas.repoAdmin, max: 2 });
    for (const name of ['raowner', 'ramaint', 'radev', 'rastranger']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      userIds[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    app = await expectJson(await api('/projects', { ...json('POST', { name: 'ra-app', visibility: 'public', initialize_with_readme: true }), as: 'raowner' }), 201);
    priv = await expectJson(await api('/projects', { ...json('POST', { name: 'ra-priv', visibility: 'private' }), as: 'raowner' }), 201);
    for (const [name, level] of [['ramaint', 40], ['radev', 30]] as const) {
      await expectJson(await api(`/projects/${app.id}/members`, { ...json('POST', { user_id: userIds[name], access_level: level }), as: 'raowner' }), 201);
    }
    await eventually(async () => existsSync(repoDir(app.id)) && git(repoDir(app.id), 'for-each-ref') !== '' && existsSync(repoDir(priv.id)), 30_000);
    commitFiles(app.id, {
      'src/app.ts': 'x'.repeat(600), 'lib/tool.rb': 'y'.repeat(300), 'web/index.html': 'z'.repeat(100),
      'docs/guide.js': 'd'.repeat(9000), 'node_modules/dep/index.js': 'n'.repeat(9000), 'NOTES.md': 'm'.repeat(9000), 'package.json': '{}',
    }, 'Add code');
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  describe('GET /projects/:id/snapshot', () => {
    it('streams an uncompressed tar of the bare repository to administrators, with Workhorse’s headers', async () => {
      const res = await api(`/projects/${app.id}/snapshot`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/x-tar');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="snapshot.tar"');
      expect(res.headers.get('content-transfer-encoding')).toBe('binary');
      expect(res.headers.get('cache-control')).toBe('private');
      expect(res.headers.get('content-length')).toBeNull();
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      const out = await untar(await res.arrayBuffer());
      try {
        expect(existsSync(path.join(out, 'HEAD'))).toBe(true);
        expect(existsSync(path.join(out, 'objects'))).toBe(true);
        expect(readdirSync(out)).not.toContain('config');
        expect(readdirSync(out)).not.toContain('hooks');
        expect(execFileSync('git', ['--git-dir', out, 'log', '--format=%s', 'main'], { encoding: 'utf8' }).trim()).toBe('Add code\nInitial commit');
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });

    it('is for administrators only: 401 anonymous, 403 even for the owner, 404 for a project that does not exist', async () => {
      expect(await expectJson(await api(`/projects/${app.id}/snapshot`, { as: null }), 401)).toEqual({ message: '401 Unauthorized' });
      expect(await expectJson(await api(`/projects/${app.id}/snapshot`, { as: 'raowner' }), 403)).toEqual({ message: '403 Forbidden' });
      expect(await expectJson(await api(`/projects/${app.id}/snapshot?wiki=true`, { as: 'raowner' }), 403)).toEqual({ message: '403 Forbidden' });
      expect(await expectJson(await api('/projects/999999/snapshot'), 404)).toEqual({ message: '404 Project Not Found' });
      expect(await expectJson(await api(`/projects/${app.id}/snapshot?wiki=maybe`), 400)).toEqual({ error: 'wiki is invalid' });
    });

    it('answers a repository that is not on disk (no wiki here) as GitLab: 200 and an empty body', async () => {
      const res = await api(`/projects/${app.id}/snapshot?wiki=true`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/x-tar');
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    });
  });

  describe('GET /projects/:id/storage', () => {
    it('is the storage record, one object, for administrators', async () => {
      expect(await expectJson(await api(`/projects/${app.id}/storage`), 200)).toEqual({
        disk_path: hashed(app.id), project_id: app.id, repository_storage: 'default', created_at: app.created_at,
      });
      expect(await expectJson(await api(`/projects/${app.id}/storage`, { as: 'raowner' }), 403)).toEqual({ message: '403 Forbidden' });
      expect(await expectJson(await api(`/projects/${app.id}/storage`, { as: null }), 401)).toEqual({ message: '401 Unauthorized' });
      expect(await expectJson(await api('/projects/999999/storage'), 404)).toEqual({ message: '404 Project Not Found' });
    });
  });

  describe('GET /projects/:id/languages', () => {
    it('gives byte shares of the default branch with two decimals, programming and markup only, to whoever may read the project', async () => {
      const expected = { TypeScript: 60, Ruby: 30, HTML: 10 };
      const res = await api(`/projects/${app.id}/languages`, { as: null });
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await expectJson(res, 200)).toEqual(expected);
      expect(Object.keys(await expectJson(await api(`/projects/${app.id}/languages`, { as: 'rastranger' }), 200))).toEqual(['TypeScript', 'Ruby', 'HTML']);
      expect(await expectJson(await api(`/projects/${priv.id}/languages`, { as: 'raowner' }), 200)).toEqual({}); // empty repository
      expect(await expectJson(await api(`/projects/${priv.id}/languages`, { as: 'rastranger' }), 404)).toEqual({ message: '404 Project Not Found' });
      expect(await expectJson(await api(`/projects/${priv.id}/languages`, { as: null }), 404)).toEqual({ message: '404 Project Not Found' });
    });
  });

  describe('POST /projects/:id/housekeeping', () => {
    it('queues git gc for Maintainers (201), 409 with GitLab’s message while one is queued or running, and again once done', async () => {
      expect(await expectJson(await api(`/projects/${app.id}/housekeeping`, { method: 'POST', as: 'radev' }), 403)).toEqual({ message: '403 Forbidden' });
      expect(await expectJson(await api(`/projects/${app.id}/housekeeping`, { method: 'POST', as: null }), 401)).toEqual({ message: '401 Unauthorized' });
      expect(await expectJson(await api(`/projects/${priv.id}/housekeeping`, { method: 'POST', as: 'rastranger' }), 404)).toEqual({ message: '404 Project Not Found' });
      expect(await expectJson(await api(`/projects/${app.id}/housekeeping`, { ...json('POST', { task: 'gc' }), as: 'ramaint' }), 400))
        .toEqual({ error: 'task does not have a valid value' });

      // An earlier job of the project, not due for an hour, holds the queue: the housekeeping job stays queued.
      const { rows: [hold] } = await db.query<{ id: string }>(
        "INSERT INTO repository_jobs (project_id, kind, payload, run_after) VALUES ($1, 'create', '{}', now() + interval '1 hour') RETURNING id", [app.id]);
      try {
        const jid = await expectJson(await api(`/projects/${app.id}/housekeeping`, { method: 'POST', as: 'ramaint' }), 201);
        expect(jid).toMatch(/^[0-9a-f]{24}$/);
        const { rows } = await db.query("SELECT payload FROM repository_jobs WHERE project_id = $1 AND kind = 'housekeeping'", [app.id]);
        expect(rows).toEqual([{ payload: { task: 'eager', jid } }]);
        for (const task of ['eager', 'prune']) {
          expect(await expectJson(await api(`/projects/${app.id}/housekeeping`, { ...json('POST', { task }), as: 'ramaint' }), 409))
            .toEqual({ message: 'Somebody already triggered housekeeping for this resource in the past 1440 minutes' });
        }
      } finally {
        await db.query('DELETE FROM repository_jobs WHERE id = $1', [hold!.id]);
      }
      // The job runs (git gc packs the loose objects), the lease ends with it.
      await eventually(async () => (await db.query("SELECT 1 FROM repository_jobs WHERE project_id = $1", [app.id])).rowCount === 0, 30_000);
      expect(git(repoDir(app.id), 'count-objects', '-v').match(/^count: (\d+)/m)?.[1]).toBe('0');
      expect(await expectJson(await api(`/projects/${app.id}/housekeeping?task=prune`, { method: 'POST', as: 'ramaint' }), 201)).toMatch(/^[0-9a-f]{24}$/);
    });
  });

  describe('POST /projects/:id/repository_size and statistics', () => {
    it('recalculates the sizes for Maintainers (201 true); statistics=true then shows the commit’s real numbers', async () => {
      const stats = async () => (await expectJson(await api(`/projects/${priv.id}?statistics=true`, { as: 'raowner' }), 200)).statistics;
      await eventually(async () => (await stats()).repository_size > 0, 30_000); // measured when created
      const before = await stats();
      expect(before.commit_count).toBe(0);
      commitFiles(priv.id, { 'big.txt': 'b'.repeat(300_000) }, 'Big file');
      expect(await expectJson(await api(`/projects/${priv.id}/repository_size`, { method: 'POST', as: 'rastranger' }), 404)).toEqual({ message: '404 Project Not Found' });
      expect(await expectJson(await api(`/projects/${priv.id}/repository_size`, { method: 'POST', as: 'raowner' }), 201)).toBe(true);
      const after = await eventually(async () => {
        const s = await stats();
        return s.commit_count === 1 ? s : undefined;
      }, 30_000);
      expect(after.repository_size).toBeGreaterThan(before.repository_size);
      expect(after.storage_size).toBe(after.repository_size + after.wiki_size + after.lfs_objects_size + after.uploads_size);
      expect(await expectJson(await api(`/projects/${app.id}/repository_size`, { method: 'POST', as: 'radev' }), 403)).toEqual({ message: '403 Forbidden' });
    });
  });
});
