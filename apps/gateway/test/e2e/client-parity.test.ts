import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Gitlab } from '@gitbeaker/rest';
import { Pool } from 'pg';
import { REPO_ROOT, startStack, type RunningStack } from '@glp/testing';

const run = promisify(execFile);
const PYTHON = path.join(REPO_ROOT, '.venv/bin/python');

/**
 * What real clients (python-gitlab, @gitbeaker/rest) tripped on, on a stack with GitLab's default settings (local
 * webhook targets not allowed): hook URLs checked at save time without requiring DNS, idempotent deletes of hooks and
 * push rules, keyset links only while rows may follow, GitLab EE's project fields, and import_project_members' 422.
 */
describe('GitLab parity through real clients', () => {
  let stack: RunningStack;
  let pool: Pool;
  let api: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    if (!existsSync(PYTHON)) throw new Error('.venv is missing: run deploy/local/python-clients.sh (npm test does)');
    stack = await startStack({ name: 'e2e_client_parity' });
    api = new Gitlab({ host: stack.url, token: stack.rootToken });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('python-gitlab: hook URLs, deletes, keyset links and project fields', async () => {
    const script = path.join(__dirname, 'python/python_gitlab_parity.py');
    let stdout: string;
    try {
      ({ stdout } = await run(PYTHON, [script], { env: { ...process.env, GITLAB_URL: stack.url, GITLAB_TOKEN: stack.rootToken }, timeout: 120_000 }));
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`python-gitlab script failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
    const out = JSON.parse(stdout);

    // AddressableUrlValidator at save: no DNS required; a name that resolves to a loopback address is still refused.
    expect(out.hook_create_unresolvable).toEqual({ url: 'http://hook.url' });
    expect(out.hook_create_example).toEqual({ url: 'https://hooks.example.com/h' });
    expect(out.hook_edit_unresolvable).toEqual({ url: 'http://still-not-resolvable.invalid/h' });
    expect(out.hook_create_localhost).toEqual({ error: 'GitlabCreateError', code: 422, message: 'Invalid url given' });

    // DELETE hook: the record when it existed, then an empty 2xx; push rule: 2xx both times.
    expect(out.hook_delete_first).toEqual({ status: 200, id: expect.any(Number) });
    expect(out.hook_delete_second).toEqual({ status: 204, body: '' });
    expect(out.hook_delete_again_via_manager).toBe('ok');
    expect(out.push_rule_delete_first).toBe('ok');
    expect(out.push_rule_delete_second).toBe('ok');

    // Keyset: 5 rows by 2 → pages of 2, 2, 1 and no link after the short page; 4 rows → two pages, no empty third.
    expect(out.keyset_5).toEqual({ names: ['pyks-0', 'pyks-1', 'pyks-2', 'pyks-3', 'pyks-4'], pages: 3 });
    expect(out.keyset_4).toEqual({ names: ['pyks-0', 'pyks-1', 'pyks-2', 'pyks-3'], pages: 2 });
    expect(out.keyset_starred).toEqual(['pyks-0', 'pyks-1', 'pyks-2']);
    expect(out.keyset_forks).toEqual(['pyfork-0', 'pyfork-1', 'pyfork-2']);

    const defaults = { operations_access_level: 'enabled', approvals_before_merge: 0, issues_template: null, merge_requests_template: null, merge_pipelines_enabled: false, merge_trains_enabled: false };
    const edited = { operations_access_level: 'private', approvals_before_merge: 2, issues_template: 'Issue tmpl', merge_requests_template: 'MR tmpl', merge_pipelines_enabled: true, merge_trains_enabled: true };
    expect(out.fields_default).toEqual(defaults);
    expect(out.fields_get).toEqual(edited);
    expect(out.fields_list).toEqual(edited);
    expect(out.checksum_failed).toEqual({ repository: [], wiki: [], off: ['py-fields'] });
  });

  it('@gitbeaker/rest: removing a hook or a push rule twice resolves', async () => {
    const project = await api.Projects.create({ name: 'gb-parity-deletes' });
    const hook = await api.ProjectHooks.add(project.id, 'http://192.0.2.10/h');
    expect(hook.url).toBe('http://192.0.2.10/h');
    expect(await api.ProjectHooks.remove(project.id, hook.id, { showExpanded: true })).toMatchObject({ status: 200, data: { id: hook.id, url: hook.url } });
    expect(await api.ProjectHooks.remove(project.id, hook.id, { showExpanded: true })).toMatchObject({ status: 204 });
    await expect(api.ProjectHooks.all(project.id)).resolves.toEqual([]);

    await api.ProjectPushRules.create(project.id, { denyDeleteTag: true });
    expect(await api.ProjectPushRules.remove(project.id, { showExpanded: true })).toMatchObject({ status: 204 });
    expect(await api.ProjectPushRules.remove(project.id, { showExpanded: true })).toMatchObject({ status: 204 });
    // A project the caller cannot see is still 404, rule or not.
    await expect(api.ProjectPushRules.remove(987654321)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
    await expect(api.ProjectHooks.remove(987654321, hook.id)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });

  it('@gitbeaker/rest: an import of project members that does not complete is 422, and nothing is imported', async () => {
    const users = [];
    for (const name of ['imp-a', 'imp-b', 'imp-c']) {
      users.push(await api.Users.create({ email: `${name}@example.com`, username: name, name, password: `${name}-password-1`, skipConfirmation: true }));
    }
    const source = await api.Projects.create({ name: 'gb-import-source' });
    const target = await api.Projects.create({ name: 'gb-import-target' });
    for (const u of users) await api.ProjectMembers.add(source.id, 30, { userId: u.id });

    // Another writer adds imp-b to the target while the import runs: the import's insert waits on it, then conflicts.
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO ${stack.schemas.projects}.project_members (project_id, user_id, access_level) VALUES ($1, $2, 20)`, [target.id, users[1]!.id]);
      const answer = fetch(`${stack.apiUrl}/projects/${target.id}/import_project_members/${source.id}`, { method: 'POST', headers: { 'PRIVATE-TOKEN': stack.rootToken } });
      const until = Date.now() + 30_000;
      for (;;) {
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO project_members%'`);
        if (rows[0].n > 0) break;
        if (Date.now() > until) throw new Error('the import never waited on the concurrent insert');
        await new Promise((r) => setTimeout(r, 50));
      }
      await other.query('COMMIT');
      const res = await answer;
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 422, body: { message: 'Import failed', reason: 'import_failed_error' } });
    } finally {
      other.release();
    }
    // Nothing half-imported: only the concurrent writer's member.
    const imported = async () => (await api.ProjectMembers.all(target.id)).filter((m) => m.username.startsWith('imp-')).map((m) => [m.username, m.access_level]);
    expect(await imported()).toEqual([['imp-b', 20]]);

    // The client's own call, retried once nothing races: it completes.
    await expect(api.Projects.importProjectMembers(target.id, source.id)).resolves.toEqual({ status: 'success' });
    expect((await imported()).sort()).toEqual([['imp-a', 30], ['imp-b', 20], ['imp-c', 30]]);
  });
});
