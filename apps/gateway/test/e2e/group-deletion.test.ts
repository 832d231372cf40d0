import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Gitlab } from '@gitbeaker/rest';
import { Pool } from 'pg';
import { eventually, groupPermanentRemovalPath, REPO_ROOT, rootApi, startStack, type RunningStack } from '@glp/testing';

const run = promisify(execFile);
const PYTHON = path.join(REPO_ROOT, '.venv/bin/python');

/**
 * GitLab 18's delayed group deletion (every tier) over HTTP and through python-gitlab and @gitbeaker/rest: DELETE marks
 * the group (202, renamed `<path>-deletion_scheduled-<id>` with its subgroups and projects moving along, still
 * readable, `marked_for_deletion_on` today), POST /restore takes it back to its old path, `permanently_remove` with the
 * renamed full path removes a marked group with its subgroups and projects, and identity's worker removes a group once
 * `deletion_adjourned_period` has passed. GET /projects `active` / `marked_for_deletion_on` follow the marks.
 */
describe('GitLab 18 delayed group deletion', () => {
  let stack: RunningStack;
  let pool: Pool;
  let gitbeaker: InstanceType<typeof Gitlab>;
  const { api, expectJson } = rootApi(() => stack);
  const tokens: Record<string, string> = {};
  const as = (who: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { 'PRIVATE-TOKEN': tokens[who]! } });
  const today = () => new Date().toISOString().slice(0, 10);
  const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });
  const DELETE: RequestInit = { method: 'DELETE' };
  const newGroup = (name: string, parentId?: number) => api('/groups', post({ name, path: name, parent_id: parentId })).then((r) => expectJson(r, 201));
  const newProject = (name: string, namespaceId?: number) => api('/projects', post({ name, namespace_id: namespaceId })).then((r) => expectJson(r, 201));
  const projectNames = async (query: string) =>
    ((await expectJson(await api(`/projects?search=${query}&order_by=id&sort=asc&per_page=100`), 200)) as { name: string }[]).map((p) => p.name);
  const groupRows = async (id: number) =>
    (await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.identity}.namespaces WHERE traversal_ids @> ARRAY[$1::bigint]`, [id])).rows[0].n as number;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_group_deletion', env: { GROUP_REMOVAL_INTERVAL_MS: '200' } });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    gitbeaker = new Gitlab({ host: stack.url, token: stack.rootToken });
    for (const name of ['gd_dev', 'gd_stranger']) {
      const user = await expectJson(await api('/users', post({ username: name, name, email: `${name}@example.com`, password: 'a-long-password-1' })), 201);
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, post({ name: 'api', scopes: ['api'] })), 201)).token;
    }
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('marks a group (renamed, still readable, subgroups and projects moved along); refuses non-owners; restore brings it back', async () => {
    const top = await newGroup('gd-top');
    const child = await newGroup('child', top.id);
    const inside = await newProject('inside', child.id);
    const dev = (await expectJson(await api('/users?username=gd_dev'), 200))[0];
    await expectJson(await api(`/groups/${top.id}/members`, post({ user_id: dev.id, access_level: 30 })), 201);

    expect(await expectJson(await api(`/groups/${top.id}`, as('gd_dev', DELETE)), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api(`/groups/${top.id}`, as('gd_stranger', DELETE)), 404)).toEqual({ message: '404 Group Not Found' });
    expect(await expectJson(await api(`/groups/${top.id}/restore`, as('gd_dev', { method: 'POST' })), 403)).toEqual({ message: '403 Forbidden' });

    expect(await expectJson(await api(`/groups/${top.id}`, DELETE), 202)).toEqual({ message: '202 Accepted' });
    const renamed = `gd-top-deletion_scheduled-${top.id}`;
    expect(await expectJson(await api(`/groups/${top.id}`), 200)).toMatchObject({
      id: top.id, name: renamed, path: renamed, full_path: renamed, marked_for_deletion_on: today(),
    });
    expect(await expectJson(await api(`/groups/${child.id}?with_projects=false`), 200)).toMatchObject({
      full_path: `${renamed}/child`, marked_for_deletion_on: null,
    });
    const listed = (await expectJson(await api(`/groups?search=${renamed}`), 200)) as { id: number; marked_for_deletion_on: string | null }[];
    expect(listed.map((g) => [g.id, g.marked_for_deletion_on])).toEqual([[top.id, today()]]);
    // The old path is free while the group waits; its projects moved with it (projects learns through NamespaceChanged).
    expect((await api('/groups/gd-top')).status).toBe(404);
    await eventually(async () => (await expectJson(await api(`/projects/${inside.id}`), 200)).path_with_namespace === `${renamed}/child/inside`);

    expect(await expectJson(await api(`/groups/${top.id}`, DELETE), 400)).toEqual({ message: 'Group has been already marked for deletion' });
    expect(await expectJson(await api(`/groups/${top.id}?permanently_remove=true&full_path=gd-top`, DELETE), 400))
      .toEqual({ message: '`full_path` is incorrect. You must enter the complete path for the group.' });
    expect(await expectJson(await api(`/groups/${child.id}?permanently_remove=true&full_path=${encodeURIComponent(`${renamed}/child`)}`, DELETE), 400))
      .toEqual({ message: 'Group must be marked for deletion first.' });
    expect(await groupRows(top.id)).toBe(2);

    const restored = await expectJson(await api(`/groups/${top.id}/restore`, { method: 'POST' }), 201);
    expect(restored).toMatchObject({ id: top.id, name: 'gd-top', path: 'gd-top', full_path: 'gd-top', marked_for_deletion_on: null });
    expect(await expectJson(await api(`/groups/${child.id}?with_projects=false`), 200)).toMatchObject({ full_path: 'gd-top/child' });
    await eventually(async () => (await expectJson(await api(`/projects/${inside.id}`), 200)).path_with_namespace === 'gd-top/child/inside');
    expect(await expectJson(await api(`/groups/${top.id}/restore`, { method: 'POST' }), 400)).toEqual({ message: 'Group has not been marked for deletion' });
  });

  it('restores under a suffixed path when another group took the old one meanwhile', async () => {
    const first = await newGroup('gd-taken');
    await expectJson(await api(`/groups/${first.id}`, DELETE), 202);
    const second = await newGroup('gd-taken');
    const restored = await expectJson(await api(`/groups/${first.id}/restore`, { method: 'POST' }), 201);
    expect(restored.path).toMatch(/^gd-taken-[A-Za-z0-9]{5}$/);
    expect(restored.name).toBe(restored.path);
    expect((await expectJson(await api(`/groups/${second.id}`), 200)).path).toBe('gd-taken');
  });

  it('permanently_remove with the renamed full path removes the marked group, its subgroups and their projects', async () => {
    const top = await newGroup('gd-gone');
    const sub = await newGroup('sub', top.id);
    const project = await newProject('doomed', sub.id);
    await expectJson(await api(`/groups/${top.id}`, DELETE), 202);
    expect(await expectJson(await api(groupPermanentRemovalPath(top), DELETE), 202)).toEqual({ message: '202 Accepted' });
    expect(await expectJson(await api(`/groups/${top.id}`), 404)).toEqual({ message: '404 Group Not Found' });
    expect((await api(`/groups/${sub.id}`)).status).toBe(404);
    expect(await groupRows(top.id)).toBe(0);
    await eventually(async () => (await api(`/projects/${project.id}`)).status === 404);
  });

  it('removes a group once deletion_adjourned_period has passed since it was marked (identity worker)', async () => {
    const group = await newGroup('gd-due');
    const project = await newProject('due-inside', group.id);
    await expectJson(await api(`/groups/${group.id}`, DELETE), 202);
    const markedDaysAgo = (days: number) =>
      pool.query(`UPDATE ${stack.schemas.identity}.namespaces SET marked_for_deletion_on = current_date - $2::int WHERE id = $1`, [group.id, days]);
    await markedDaysAgo(6);
    await new Promise((r) => setTimeout(r, 1000)); // several rounds of the 200 ms worker: 6 < 7 days, nothing due
    expect((await api(`/groups/${group.id}`)).status).toBe(200);
    await markedDaysAgo(7);
    await eventually(async () => (await api(`/groups/${group.id}`)).status === 404);
    await eventually(async () => (await api(`/projects/${project.id}`)).status === 404);
    expect(await groupRows(group.id)).toBe(0);
  });

  it('GET /projects active and marked_for_deletion_on: archived, marked and in-a-marked-group projects are not active', async () => {
    const group = await newGroup('gd-act');
    const sub = await newGroup('sub', group.id);
    const live = await newProject('gdact-live', group.id);
    const archived = await newProject('gdact-archived', group.id);
    const marked = await newProject('gdact-marked', group.id);
    const inMarkedGroup = await newProject('gdact-ingroup', sub.id);
    await expectJson(await api(`/projects/${archived.id}/archive`, { method: 'POST' }), 201);
    await expectJson(await api(`/projects/${marked.id}`, DELETE), 202);
    await expectJson(await api(`/groups/${sub.id}`, DELETE), 202);

    await eventually(async () => (await projectNames('gdact&active=true')).join() === 'gdact-live');
    expect(await projectNames('gdact&active=false')).toEqual(['gdact-archived', `gdact-marked-deletion_scheduled-${marked.id}`, 'gdact-ingroup']);
    expect(await projectNames('gdact')).toHaveLength(4);
    expect(await projectNames(`gdact&marked_for_deletion_on=${today()}`)).toEqual([`gdact-marked-deletion_scheduled-${marked.id}`]);
    expect(await projectNames('gdact&marked_for_deletion_on=2001-02-03')).toEqual([]);
    expect(await expectJson(await api('/projects?marked_for_deletion_on=2001-02-30'), 400)).toEqual({ error: 'marked_for_deletion_on is invalid' });

    // Restoring the subgroup makes its project active again.
    await expectJson(await api(`/groups/${sub.id}/restore`, { method: 'POST' }), 201);
    await eventually(async () => (await projectNames('gdact&active=true')).join() === 'gdact-live,gdact-ingroup');
    expect(live.id).toBeLessThan(inMarkedGroup.id);
  });

  it('@gitbeaker/rest: Groups.remove marks, Groups.restore restores, remove with permanentlyRemove removes', async () => {
    const group = await gitbeaker.Groups.create('gb-grp', 'gb-grp');
    await gitbeaker.Groups.remove(group.id);
    await expect(gitbeaker.Groups.show(group.id)).resolves.toMatchObject({ marked_for_deletion_on: today(), full_path: `gb-grp-deletion_scheduled-${group.id}` });
    await expect(gitbeaker.Groups.remove(group.id)).rejects.toMatchObject({
      cause: { response: { status: 400 }, description: 'Group has been already marked for deletion' },
    });
    await gitbeaker.Groups.restore(group.id);
    await expect(gitbeaker.Groups.show(group.id)).resolves.toMatchObject({ marked_for_deletion_on: null, full_path: 'gb-grp' });
    await gitbeaker.Groups.remove(group.id);
    await gitbeaker.Groups.remove(group.id, { permanentlyRemove: true, fullPath: `gb-grp-deletion_scheduled-${group.id}` });
    await expect(gitbeaker.Groups.show(group.id)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });

  it('python-gitlab: group.delete() marks, group.restore() restores, permanently_remove removes; projects.list(active=...)', async () => {
    if (!existsSync(PYTHON)) throw new Error('.venv is missing: run deploy/local/python-clients.sh (npm test does)');
    let stdout: string;
    try {
      ({ stdout } = await run(PYTHON, [path.join(__dirname, 'python/python_gitlab_group_deletion.py')], {
        env: { ...process.env, GITLAB_URL: stack.url, GITLAB_TOKEN: stack.rootToken }, timeout: 60_000,
      }));
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`python-gitlab script failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
    const out = JSON.parse(stdout);
    const renamed = expect.stringMatching(/^py-grp-deletion_scheduled-\d+$/);
    expect(out).toEqual({
      marked: [renamed, renamed, true],
      second_delete: [400, 'Group has been already marked for deletion'],
      inactive: expect.any(Array),
      active: expect.any(Array),
      restored: ['py-grp', 'py-grp', null],
      permanent_unmarked: [400, 'Group must be marked for deletion first.'],
      permanent_wrong_path: [400, '`full_path` is incorrect. You must enter the complete path for the group.'],
      after_permanent: 404,
      project_id: expect.any(Number),
      live_id: expect.any(Number),
    });
    expect(out.active).toContain('pygd-live');
    expect(out.active).not.toContain('pygd-inside');
    await eventually(async () => (await api(`/projects/${out.project_id}`)).status === 404);
    expect((await api(`/projects/${out.live_id}`)).status).toBe(200);
  });
});
