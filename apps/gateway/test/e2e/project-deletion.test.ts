import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { groupPermanentRemovalPath, startStack, type RunningStack } from '@glp/testing';

/**
 * Deleting and restoring projects over HTTP, on the default configuration (GitLab 18: every DELETE is delayed by the
 * instance's deletion_adjourned_period, 7 days; purge every 200 ms): DELETE marks (202), restore unmarks,
 * permanently_remove deletes at once, the purge loop deletes when due,
 * and a deleted project takes its access requests (another service) with it through ProjectDeleted. Deleting a group
 * deletes its projects the same way.
 */
describe('project deletion, delayed deletion and restore through the gateway', () => {
  let stack: RunningStack;
  let pool: Pool;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const api = (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return JSON.parse(text);
  };
  const eventually = async (what: string, check: () => Promise<boolean>, ms = 15_000) => {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const requestsOf = async (kind: string, id: number) =>
    (await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.accessRequests}.access_requests WHERE source_kind = $1 AND source_id = $2`, [kind, id])).rows[0].n as number;
  /**
   * Rows that still mention the project in any table of the projects schema (every column named project_id,
   * forked_from_project_id or source_project_id, found in the catalog, so a table added later is covered) and in
   * access-requests.
   */
  const leftBehind = async (projectId: number): Promise<Record<string, number>> => {
    const { rows: columns } = await pool.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = $1 AND column_name IN ('project_id', 'forked_from_project_id', 'source_project_id') ORDER BY 1, 2`,
      [stack.schemas.projects],
    );
    const left: Record<string, number> = {};
    for (const c of columns) {
      const n = (await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.projects}.${c.table_name} WHERE ${c.column_name} = $1`, [projectId])).rows[0].n as number;
      if (n > 0) left[`${c.table_name}.${c.column_name}`] = n;
    }
    const own = (await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.projects}.projects WHERE id = $1`, [projectId])).rows[0].n as number;
    if (own > 0) left.projects = own;
    const requests = await requestsOf('project', projectId);
    if (requests > 0) left.access_requests = requests;
    // repo-admin: the project's uploads and avatar, rows and files.
    const uploads = (await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.repoAdmin}.uploads WHERE project_id = $1`, [projectId])).rows[0].n as number;
    if (uploads > 0) left['repo_admin.uploads'] = uploads;
    const h = createHash('sha256').update(String(projectId)).digest('hex');
    for (const dir of [path.join('@uploads', '@hashed', h.slice(0, 2), h.slice(2, 4), h), path.join('@uploads', '-', 'system', 'project', 'avatar', String(projectId))]) {
      if (existsSync(path.join(stack.storageRoot, dir))) left[dir] = 1;
    }
    return left;
  };
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_deletion', env: { PURGE_INTERVAL_MS: '200' } });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    for (const name of ['alice', 'bob', 'carol']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('refuses anonymous (401), non-owners (403) and callers who cannot see the project (404)', async () => {
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'guarded', visibility: 'private' }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.bob, access_level: 40 }), as: 'alice' }), 201);
    expect(await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE', as: null }), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE', as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE', as: 'carol' }), 404)).toEqual({ message: '404 Project Not Found' });
    expect(await expectJson(await api(`/projects/${project.id}/restore`, { method: 'POST', as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
  });

  it('marks for deletion (202, archived, marked_for_deletion_on), refuses twice, restores (201), refuses a restore of an unmarked project', async () => {
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'delayed' }), as: 'alice' }), 201);
    expect(await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE', as: 'alice' }), 202)).toEqual({ message: '202 Accepted' });
    const marked = await expectJson(await api(`/projects/${project.id}`, { as: 'alice' }), 200);
    expect(marked).toMatchObject({
      archived: true, marked_for_deletion_on: today(), marked_for_deletion_at: today(),
      name: `delayed-deletion_scheduled-${project.id}`, path: `delayed-deletion_scheduled-${project.id}`,
    });
    expect(await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE', as: 'alice' }), 400)).toEqual({ message: 'Project has been already marked for deletion' });
    const restored = await expectJson(await api(`/projects/${project.id}/restore`, { method: 'POST', as: 'alice' }), 201);
    expect(restored).toMatchObject({ id: project.id, archived: false, marked_for_deletion_on: null, name: 'delayed', path: 'delayed' });
    expect(await expectJson(await api(`/projects/${project.id}/restore`, { method: 'POST', as: 'alice' }), 400)).toEqual({ message: 'Project has not been marked for deletion' });
  });

  it('removes a marked project at once with permanently_remove and its full path; its access requests go through ProjectDeleted', async () => {
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'doomed', visibility: 'public' }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${project.id}/access_requests`, { method: 'POST', as: 'carol' }), 201);
    expect(await requestsOf('project', project.id)).toBe(1);
    const early = await expectJson(await api(`/projects/${project.id}?permanently_remove=true&full_path=alice/doomed`, { method: 'DELETE', as: 'alice' }), 400);
    expect(early.message).toBe('Project must be marked for deletion first.');
    await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE', as: 'alice' }), 202);
    const wrong = await expectJson(await api(`/projects/${project.id}?permanently_remove=true&full_path=alice/other`, { method: 'DELETE', as: 'alice' }), 400);
    expect(wrong.message).toContain('`full_path` is incorrect');
    const fullPath = encodeURIComponent(`${project.path_with_namespace}-deletion_scheduled-${project.id}`);
    await expectJson(await api(`/projects/${project.id}?permanently_remove=true&full_path=${fullPath}`, { method: 'DELETE', as: 'alice' }), 202);
    expect(await expectJson(await api(`/projects/${project.id}`), 404)).toEqual({ message: '404 Project Not Found' });
    await eventually('access requests of the deleted project removed', async () => (await requestsOf('project', project.id)) === 0);
  });

  it('purges a project marked deletion_adjourned_period (7) days ago', async () => {
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'due' }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE', as: 'alice' }), 202);
    await pool.query(`UPDATE ${stack.schemas.projects}.projects SET marked_for_deletion_on = current_date - 7 WHERE id = $1`, [project.id]);
    await eventually('purged', async () => (await api(`/projects/${project.id}`)).status === 404);
    const left = await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.projects}.project_members WHERE project_id = $1`, [project.id]);
    expect(left.rows[0].n).toBe(0);
  });

  it('deletes the projects of a deleted group, and the group\u2019s and projects\u2019 access requests', async () => {
    const group = await expectJson(await api('/groups', { ...json('POST', { name: 'Gone', path: 'gone', visibility: 'public' }), as: 'alice' }), 201);
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'inside', namespace_id: group.id, visibility: 'public' }), as: 'alice' }), 201);
    await expectJson(await api(`/groups/${group.id}/access_requests`, { method: 'POST', as: 'carol' }), 201);
    await expectJson(await api(`/projects/${project.id}/access_requests`, { method: 'POST', as: 'carol' }), 201);
    await expectJson(await api(`/groups/${group.id}`, { method: 'DELETE', as: 'alice' }), 202);
    // GitLab 18 only marks the group; removing it for good takes permanently_remove with its renamed full path.
    await expectJson(await api(groupPermanentRemovalPath(group), { method: 'DELETE', as: 'alice' }), 202);
    await eventually('the group project deleted', async () => (await api(`/projects/${project.id}`)).status === 404);
    await eventually('access requests cleaned', async () => (await requestsOf('group', group.id)) + (await requestsOf('project', project.id)) === 0);
    const rows = await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.projects}.projects WHERE id = $1`, [project.id]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('leaves nothing behind in any table of any service once a project with every kind of attached data is deleted', async () => {
    const project = await expectJson(await api('/projects', { ...json('POST', { name: 'everything', visibility: 'public' }), as: 'alice' }), 201);
    const upstream = await expectJson(await api('/projects', { ...json('POST', { name: 'upstream', visibility: 'public' }), as: 'bob' }), 201);
    const group = await expectJson(await api('/groups', { ...json('POST', { name: 'Sharers', path: 'sharers' }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.bob, access_level: 30 }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${project.id}/star`, { method: 'POST', as: 'bob' }), 201);
    await expectJson(await api(`/projects/${project.id}/share`, { ...json('POST', { group_id: group.id, group_access: 20 }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${project.id}/access_requests`, { method: 'POST', as: 'carol' }), 201);
    await expectJson(await api(`/projects/${project.id}/custom_attributes/team`, json('PUT', { value: 'core' })), 200);
    await expectJson(await api(`/projects/${project.id}/fork/${upstream.id}`, { method: 'POST', as: 'alice' }), 201);
    const fork = await expectJson(await api(`/projects/${project.id}/fork`, { ...json('POST', { path: 'everything-fork', name: 'everything fork' }), as: 'carol' }), 201);
    await expectJson(await api(`/projects/${project.id}`, { ...json('PUT', { path: 'everything-renamed' }), as: 'alice' }), 200);
    const file = new FormData();
    file.append('file', new Blob(['notes']), 'notes.txt');
    await expectJson(await api(`/projects/${project.id}/uploads`, { method: 'POST', body: file, as: 'bob' }), 201);
    const avatar = new FormData();
    avatar.append('avatar', new Blob([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')], { type: 'image/png' }), 'logo.png');
    await expectJson(await api(`/projects/${project.id}`, { method: 'PUT', body: avatar, as: 'alice' }), 200);
    expect(await leftBehind(project.id)).toMatchObject({ 'repo_admin.uploads': 2 });
    expect(Object.keys(await leftBehind(project.id)).length).toBeGreaterThan(3); // the check sees attached rows

    await expectJson(await api(`/projects/${project.id}`, { method: 'DELETE', as: 'alice' }), 202);
    await pool.query(`UPDATE ${stack.schemas.projects}.projects SET marked_for_deletion_on = current_date - 7 WHERE id = $1`, [project.id]);
    await eventually('purged', async () => (await api(`/projects/${project.id}`)).status === 404);
    await eventually('nothing left behind', async () => Object.keys(await leftBehind(project.id)).length === 0);
    expect(await leftBehind(project.id)).toEqual({});
    // The fork and the upstream stay, without the relation.
    expect(await expectJson(await api(`/projects/${fork.id}`, { as: 'carol' }), 200)).not.toHaveProperty('forked_from_project');
    expect(await expectJson(await api(`/projects/${upstream.id}`, { as: 'bob' }), 200)).toMatchObject({ forks_count: 0 });
  });
});
