import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Gitlab } from '@gitbeaker/rest';
import { eventually, gitCli, REPO_ROOT, rootApi, startStack, type RunningStack } from '@glp/testing';

const run = promisify(execFile);
const PYTHON = path.join(REPO_ROOT, '.venv/bin/python');

/**
 * GET /projects/:id/events as GitLab 18 serves it: the project's creation, pushes (a new branch, a push to it, its
 * deletion, a tag) recorded from repo-admin's push events, a member joining and leaving; read through python-gitlab
 * (filters, order, dates, pagination) and @gitbeaker/rest; a private project is 404 to a non-member, a bad filter 400.
 */
describe('project events', () => {
  let stack: RunningStack;
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-e2e-events-'));
  const { api, expectJson } = rootApi(() => stack);
  const { mustGit } = gitCli(work);
  const ids: Record<string, number> = {};
  const tokens: Record<string, string> = {};
  let project: { id: number; path_with_namespace: string };
  const commits: Record<string, string> = {};
  const eventsOf = async (query = '', token?: string) =>
    expectJson(await api(`/projects/${project.id}/events${query}`, token ? { headers: { 'PRIVATE-TOKEN': token } } : {}), 200);

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_project_events' });
    for (const name of ['ev-dev', 'ev-out']) {
      const user = await expectJson(await api('/users', { method: 'POST', body: JSON.stringify({ username: name, name: `User ${name}`, email: `${name}@example.com`, password: `${name}-password-1` }) }), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, { method: 'POST', body: JSON.stringify({ name: 'events', scopes: ['api'] }) }), 201)).token;
    }
    project = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'events-demo', visibility: 'private' }) }), 201);

    const remote = new URL(`${stack.url}/${project.path_with_namespace}.git`);
    remote.username = 'root';
    remote.password = stack.rootToken;
    const dir = path.join(work, 'events-demo');
    await mustGit(work, 'init', '-q', '-b', 'main', dir);
    await mustGit(dir, 'remote', 'add', 'origin', remote.toString());
    const commit = async (message: string) => {
      writeFileSync(path.join(dir, `f-${Object.keys(commits).length}.txt`), message);
      await mustGit(dir, 'add', '-A');
      await mustGit(dir, '-c', 'user.name=Root', '-c', 'user.email=root@example.com', 'commit', '-q', '-m', message);
      return mustGit(dir, 'rev-parse', 'HEAD');
    };
    // The repository is created by a job: it answers once repo-admin ran it.
    await eventually(async () => (await mustGit(dir, 'ls-remote', 'origin').then(() => true, () => false)), 30_000);
    commits.main = await commit('Initial commit');
    await mustGit(dir, 'push', '-q', 'origin', 'main');
    await mustGit(dir, 'checkout', '-q', '-b', 'feature');
    commits.feature1 = await commit(`A feature whose title runs on well beyond the seventy characters an event keeps of it\n\nbody`);
    await mustGit(dir, 'push', '-q', 'origin', 'feature');
    commits.feature2 = await commit('Second feature commit');
    await mustGit(dir, 'push', '-q', 'origin', 'feature');
    await mustGit(dir, 'push', '-q', 'origin', '--delete', 'feature');
    await mustGit(dir, 'tag', 'v1.0', commits.main);
    await mustGit(dir, 'push', '-q', 'origin', 'v1.0');
    // Push events arrive through Kafka: wait for all five before the membership changes, so the order is known.
    await eventually(async () => (await eventsOf('?action=pushed')).length === 5, 30_000);
    await expectJson(await api(`/projects/${project.id}/members`, { method: 'POST', body: JSON.stringify({ user_id: ids['ev-dev'], access_level: 30 }) }), 201);
    expect((await api(`/projects/${project.id}/members/${ids['ev-dev']}`, { method: 'DELETE' })).status).toBe(204);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('lists the project’s events newest first, as GitLab’s Event entity, with push_data for pushes', async () => {
    const res = await api(`/projects/${project.id}/events`);
    const events = await expectJson(res, 200);
    expect(events.map((e: { action_name: string }) => e.action_name)).toEqual([
      'left', 'joined', 'pushed new', 'deleted', 'pushed to', 'pushed new', 'pushed new', 'created',
    ]);
    expect(res.headers.get('x-total')).toBe('8');
    expect(res.headers.get('x-page')).toBe('1');
    const rootUser = { id: expect.any(Number), username: 'root', name: expect.any(String), state: 'active', locked: false, avatar_url: null, web_url: `${stack.url}/root` };
    expect(events[0]).toEqual({
      id: expect.any(Number), project_id: project.id, action_name: 'left', target_id: null, target_iid: null, target_type: null,
      author_id: ids['ev-dev'], target_title: null, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      author: { id: ids['ev-dev'], username: 'ev-dev', public_email: null, name: 'User ev-dev', state: 'active', locked: false, avatar_url: null, web_url: `${stack.url}/ev-dev` },
      imported: false, imported_from: 'none', author_username: 'ev-dev',
    });
    expect(events[7]).toMatchObject({ action_name: 'created', author_id: events[7].author.id, author: rootUser, author_username: 'root' });
    expect(events[7]).not.toHaveProperty('push_data');
    const [tag, deleted, pushedTo, newFeature, newMain] = events.slice(2, 7).map((e: { push_data: unknown }) => e.push_data);
    expect(newMain).toEqual({ commit_count: 1, action: 'created', ref_type: 'branch', commit_from: null, commit_to: commits.main, ref: 'main', commit_title: 'Initial commit', ref_count: null });
    expect(newFeature).toEqual({
      commit_count: 1, action: 'created', ref_type: 'branch', commit_from: null, commit_to: commits.feature1, ref: 'feature',
      commit_title: 'A feature whose title runs on well beyond the seventy characters an...', ref_count: null,
    });
    expect(pushedTo).toEqual({ commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: commits.feature1, commit_to: commits.feature2, ref: 'feature', commit_title: 'Second feature commit', ref_count: null });
    expect(deleted).toEqual({ commit_count: 0, action: 'removed', ref_type: 'branch', commit_from: commits.feature2, commit_to: null, ref: 'feature', commit_title: null, ref_count: null });
    expect(tag).toMatchObject({ action: 'created', ref_type: 'tag', ref: 'v1.0', commit_from: null, commit_to: commits.main, ref_count: null });
  });

  it('python-gitlab: filters by action, sorts, filters by day, pages; a non-member of a private project gets 404', async () => {
    if (!existsSync(PYTHON)) throw new Error('.venv is missing: run deploy/local/python-clients.sh (npm test does)');
    let stdout: string;
    try {
      ({ stdout } = await run(PYTHON, [path.join(__dirname, 'python/python_gitlab_events.py')], {
        env: { ...process.env, GITLAB_URL: stack.url, GITLAB_TOKEN: stack.rootToken, PROJECT_ID: String(project.id), OUTSIDER_TOKEN: tokens['ev-out']! },
        timeout: 60_000,
      }));
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`python-gitlab script failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
    expect(JSON.parse(stdout)).toEqual({
      all_asc: ['created', 'pushed new', 'pushed new', 'pushed to', 'deleted', 'pushed new', 'joined', 'left'],
      pushed: [['pushed new', 'branch', 'main'], ['pushed new', 'branch', 'feature'], ['pushed to', 'branch', 'feature'], ['deleted', 'branch', 'feature'], ['pushed new', 'tag', 'v1.0']],
      pushed_authors: ['root'],
      before_tomorrow: 8,
      after_yesterday: 8,
      before_today: 0,
      after_today: 0,
      pages: [8, 3, 3],
      page2: ['pushed to', 'deleted', 'pushed new'],
      outsider: [404, '404 Project Not Found'],
    });
  });

  it('@gitbeaker/rest: Events.all({ projectId }) walks every page; filters travel as GitLab params', async () => {
    const root = new Gitlab({ host: stack.url, token: stack.rootToken });
    const all = await root.Events.all({ projectId: project.id, perPage: 3 });
    expect(all.map((e) => e.action_name)).toEqual(['left', 'joined', 'pushed new', 'deleted', 'pushed to', 'pushed new', 'pushed new', 'created']);
    const joined = await root.Events.all({ projectId: project.id, action: 'joined' });
    expect(joined).toEqual([expect.objectContaining({ action_name: 'joined', author_username: 'ev-dev' })]);
    const issues = await root.Events.all({ projectId: project.id, targetType: 'issue' });
    expect(issues).toEqual([]);
    const outsider = new Gitlab({ host: stack.url, token: tokens['ev-out']! });
    await expect(outsider.Events.all({ projectId: project.id })).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });

  it('public project: anonymous readers; a fork’s creation, an approved access request and a bulk push are events too', async () => {
    const pub = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'events-public', visibility: 'public', initialize_with_readme: true }) }), 201);
    const as = (token: string) => ({ headers: { 'PRIVATE-TOKEN': token } });
    // Access request approval adds the member through projects: the requester joined.
    await expectJson(await api(`/projects/${pub.id}/access_requests`, { method: 'POST', ...as(tokens['ev-out']!) }), 201);
    await expectJson(await api(`/projects/${pub.id}/access_requests/${ids['ev-out']}/approve`, { method: 'PUT' }), 201);
    // Anonymous callers read a public project's events (pushes included: its code is public).
    const anonymous = await expectJson(await fetch(`${stack.apiUrl}/projects/${pub.id}/events?sort=asc`), 200);
    expect(anonymous.map((e: { action_name: string; author_username: string }) => [e.action_name, e.author_username])).toEqual([['created', 'root'], ['joined', 'ev-out']]);

    // A fork is created by the one who forks (the holder of the fork's namespace: no "joined").
    const fork = await expectJson(await api(`/projects/${pub.id}/fork`, { method: 'POST', body: JSON.stringify({ name: 'events-fork', path: 'events-fork' }), ...as(tokens['ev-dev']!) }), 201);
    const forkEvents = await expectJson(await api(`/projects/${fork.id}/events`), 200);
    expect(forkEvents.map((e: { action_name: string; author_username: string }) => [e.action_name, e.author_username])).toEqual([['created', 'ev-dev']]);

    // Four new branches in one push: more than push_event_activities_limit (3), so one bulk event with ref_count.
    const remote = new URL(`${stack.url}/${pub.path_with_namespace}.git`);
    remote.username = 'root';
    remote.password = stack.rootToken;
    const dir = path.join(work, 'events-public');
    await eventually(async () => (await mustGit(work, 'clone', '-q', remote.toString(), dir).then(() => true, () => false)), 30_000);
    await mustGit(dir, 'push', '-q', 'origin', 'HEAD:refs/heads/b1', 'HEAD:refs/heads/b2', 'HEAD:refs/heads/b3', 'HEAD:refs/heads/b4');
    const bulk = await eventually(async () => {
      const pushed = await expectJson(await api(`/projects/${pub.id}/events?action=pushed`), 200);
      return pushed.length > 0 && pushed;
    }, 30_000);
    // The other refs' events may still be on their way: a moment later there is still one event.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await expectJson(await api(`/projects/${pub.id}/events?action=pushed`), 200)).toEqual(bulk);
    expect(bulk).toEqual([expect.objectContaining({
      action_name: 'pushed new', author_username: 'root',
      push_data: { commit_count: 0, action: 'created', ref_type: 'branch', commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: 4 },
    })]);
  });

  it('pushes only to callers who may read the code; GitLab’s 400 for a bad filter value', async () => {
    // A Guest of a private project reads the project but not its code (download_code needs Reporter).
    await expectJson(await api(`/projects/${project.id}/members`, { method: 'POST', body: JSON.stringify({ user_id: ids['ev-out'], access_level: 10 }) }), 201);
    const asGuest = await eventsOf('?sort=asc', tokens['ev-out']);
    expect(asGuest.map((e: { action_name: string }) => e.action_name)).toEqual(['created', 'joined', 'left', 'joined']);
    expect(await eventsOf('?action=pushed', tokens['ev-out'])).toEqual([]);

    for (const [query, error] of [
      ['action=bogus', 'action does not have a valid value'],
      ['target_type=commit', 'target_type does not have a valid value'],
      ['sort=up', 'sort does not have a valid value'],
      ['before=yesterday', 'before is invalid'],
    ]) {
      expect(await expectJson(await api(`/projects/${project.id}/events?${query}`), 400)).toEqual({ error });
    }
    // Parameters are checked before the project is looked up (Grape validates first).
    expect(await expectJson(await api('/projects/999999/events?action=bogus'), 400)).toEqual({ error: 'action does not have a valid value' });
    expect(await expectJson(await api('/projects/999999/events'), 404)).toEqual({ message: '404 Project Not Found' });
  });
});
