import { buildEnvelope, createKafka, encodeEnvelope, EventTypes, topicFor } from '@glp/events';
import { repositoryEventsV1 } from '@glp/proto';
import { createLogger } from '@glp/service-kit';
import { eventually, infraFromEnv, permanentRemovalPath, startStack, type RunningStack } from '@glp/testing';
import type { Producer } from 'kafkajs';

/**
 * Forks over HTTP: POST /projects/:id/fork answers at once with import_status "scheduled"; repo-admin's import reports
 * (published here to Kafka exactly as repo-admin will) move it; fork relations are linked and unlinked by Owners; the
 * forks listing shows what the caller may read; forked_from_project only when the source is readable.
 */
describe('project forks through the gateway', () => {
  let stack: RunningStack;
  let producer: Producer;
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
    return text ? JSON.parse(text) : undefined;
  };
  const create = async (as: string, body: Record<string, unknown>) => expectJson(await api('/projects', { ...json('POST', body), as }), 201);
  /** `as` undefined: the administrator. */
  const fork = (id: number | string, as: string | null | undefined, body: Record<string, unknown> = {}) =>
    api(`/projects/${encodeURIComponent(String(id))}/fork`, { ...json('POST', body), as });
  const addMember = async (projectId: number, user: string, level: number) =>
    expectJson(await api(`/projects/${projectId}/members`, { ...json('POST', { user_id: ids[user], access_level: level }) }), 201);

  /** What repo-admin publishes when it moves a fork's import (topic gitlab.repo_admin.events, key project:<id>). */
  async function reportImport(projectId: number, state: repositoryEventsV1.ImportState, error = ''): Promise<void> {
    const env = buildEnvelope({
      aggregateType: 'repository', aggregateKey: `project:${projectId}`, payloadType: EventTypes.RepositoryImportStateChanged,
      payload: repositoryEventsV1.RepositoryImportStateChanged.fromPartial({ projectId, state, error }),
    });
    await producer.send({
      topic: topicFor('repo-admin', stack.topicPrefix),
      messages: [{ key: env.aggregateKey, value: encodeEnvelope(env), headers: { event_type: env.eventType, event_id: env.eventId } }],
    });
  }

  beforeAll(async () => {
    // repo-admin is left out: this test plays its part on Kafka (the real one is tested in repo-admin's own tests).
    stack = await startStack({ name: 'e2e_forks', without: ['repo-admin'] });
    const kafka = createKafka({ brokers: infraFromEnv().kafkaBrokers, clientId: 'e2e-forks-repo-admin', logger: createLogger('e2e-forks', 'warn') });
    producer = kafka.producer();
    await producer.connect();
    for (const name of ['alice', 'bob', 'carol', 'dave']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name: name.toUpperCase(), email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
  }, 120_000);
  afterAll(async () => {
    await producer?.disconnect();
    await stack?.stop();
  });

  it('forks into the caller’s namespace at once, then follows repo-admin’s import reports to "finished"', async () => {
    const upstream = await create('alice', { name: 'Upstream', path: 'upstream', visibility: 'public', description: 'the source', issues_access_level: 'private', topics: ['a'] });
    const forked = await expectJson(await fork(upstream.id, 'bob'), 201);
    expect(forked).toMatchObject({
      name: 'Upstream', path: 'upstream', path_with_namespace: 'bob/upstream', description: 'the source', visibility: 'public',
      namespace: { kind: 'user', full_path: 'bob' }, owner: { id: ids.bob }, creator_id: ids.bob, import_status: 'scheduled',
      import_error: null, issues_access_level: 'private', mr_default_target_self: false, topics: [],
      forked_from_project: { id: upstream.id, path_with_namespace: 'alice/upstream', name: 'Upstream', forks_count: 1, namespace: { full_path: 'alice' } },
    });
    expect(forked).not.toHaveProperty('permissions'); // the Project entity
    expect(forked.forked_from_project).not.toHaveProperty('visibility'); // BasicProjectDetails only
    expect(await expectJson(await api(`/projects/${upstream.id}`, { as: 'carol' }), 200)).toMatchObject({ forks_count: 1 });
    expect(await expectJson(await api(`/projects/${upstream.id}`, { as: 'alice' }), 200)).not.toHaveProperty('mr_default_target_self');

    await reportImport(forked.id, repositoryEventsV1.ImportState.IMPORT_STATE_STARTED);
    await eventually(async () => (await expectJson(await api(`/projects/${forked.id}`, { as: 'bob' }), 200)).import_status === 'started');
    await reportImport(forked.id, repositoryEventsV1.ImportState.IMPORT_STATE_FINISHED);
    await eventually(async () => (await expectJson(await api(`/projects/${forked.id}`, { as: 'bob' }), 200)).import_status === 'finished');
    // A late or replayed report does not move it back.
    await reportImport(forked.id, repositoryEventsV1.ImportState.IMPORT_STATE_STARTED);
    await reportImport(forked.id, repositoryEventsV1.ImportState.IMPORT_STATE_FAILED, 'late');
    const other = await expectJson(await fork(upstream.id, 'dave'), 201);
    await reportImport(other.id, repositoryEventsV1.ImportState.IMPORT_STATE_FAILED, 'could not copy');
    await eventually(async () => (await expectJson(await api(`/projects/${other.id}`, { as: 'dave' }), 200)).import_status === 'failed');
    expect(await expectJson(await api(`/projects/${forked.id}`, { as: 'bob' }), 200)).toMatchObject({ import_status: 'finished', import_error: null });
    expect(await expectJson(await api(`/projects/${other.id}`, { as: 'dave' }), 200)).toMatchObject({ import_error: 'could not copy' });
    expect(await expectJson(await api(`/projects/${other.id}`, { as: 'carol' }), 200)).not.toHaveProperty('import_error');

    // Anonymous callers get ProjectDetails: the public source shows.
    expect(await expectJson(await api(`/projects/${forked.id}`, { as: null }), 200)).toMatchObject({ forked_from_project: { id: upstream.id } });
    // The forks listing: both forks, newest first; anonymous callers see them too (public); simple has no source.
    const listed = await expectJson(await api(`/projects/${upstream.id}/forks`, { as: 'carol' }), 200);
    expect(listed.map((p: { id: number }) => p.id)).toEqual([other.id, forked.id]);
    expect(listed[0]).toMatchObject({ forked_from_project: { id: upstream.id }, mr_default_target_self: false });
    expect((await expectJson(await api(`/projects/${encodeURIComponent('alice/upstream')}/forks?search=upstream&order_by=id&sort=asc`, { as: null }), 200)).map((p: { id: number }) => p.id))
      .toEqual([forked.id, other.id]);
    expect(await expectJson(await api(`/projects/${upstream.id}/forks?visibility=private`, { as: 'carol' }), 200)).toEqual([]);
    expect(Object.keys((await expectJson(await api(`/projects/${upstream.id}/forks?simple=true`, { as: 'carol' }), 200))[0])).not.toContain('forked_from_project');
  });

  it('forks into a group by path with another name and path, at the lowest visibility, or answers GitLab’s 404s and 409', async () => {
    const source = await create('alice', { name: 'Lib', visibility: 'public' });
    const group = await expectJson(await api('/groups', { ...json('POST', { name: 'Team', path: 'team', visibility: 'internal' }), as: 'carol' }), 201);
    await expectJson(await api(`/groups/${group.id}/members`, { ...json('POST', { user_id: ids.bob, access_level: 40 }), as: 'carol' }), 201);
    await expectJson(await api(`/groups/${group.id}/members`, { ...json('POST', { user_id: ids.dave, access_level: 30 }), as: 'carol' }), 201);
    const inGroup = await expectJson(await fork(source.id, 'bob', { namespace_path: 'team', name: 'Lib Fork', path: 'lib-fork', mr_default_target_self: true }), 201);
    expect(inGroup).toMatchObject({ path_with_namespace: 'team/lib-fork', name: 'Lib Fork', visibility: 'internal', mr_default_target_self: true, namespace: { id: group.id } });
    expect(inGroup).not.toHaveProperty('owner');
    const privateFork = await expectJson(await fork(source.id, 'bob', { namespace: String(group.id), path: 'lib-private', name: 'Lib Private', visibility: 'private' }), 201);
    expect(privateFork).toMatchObject({ visibility: 'private', path_with_namespace: 'team/lib-private' });

    // The same name and path again in the same namespace: 409 with the model's full messages.
    expect(await expectJson(await fork(source.id, 'bob', { namespace_id: group.id, name: 'Lib Fork', path: 'lib-fork' }), 409))
      .toEqual({ message: ['Name has already been taken', 'Path has already been taken'] });
    expect(await expectJson(await fork(source.id, 'bob', { namespace_id: group.id, path: 'bad path!' }), 409)).toMatchObject({ message: expect.arrayContaining([expect.stringMatching(/^Path /)]) });
    // Namespaces: hidden → 404 Namespace, visible without create rights → 404 Target Namespace.
    expect(await expectJson(await fork(source.id, 'bob', { namespace_path: 'carol' }), 404)).toEqual({ message: '404 Namespace Not Found' });
    expect(await expectJson(await fork(source.id, 'dave', { namespace_path: 'team' }), 404)).toEqual({ message: '404 Target Namespace Not Found' });
    expect(await expectJson(await fork(source.id, 'bob', { namespace_id: 999999 }), 404)).toEqual({ message: '404 Namespace Not Found' });
    // Anonymous: 401; bad params: 400.
    expect(await expectJson(await fork(source.id, null), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await expectJson(await fork(source.id, 'bob', { visibility: 'secret' }), 400)).toEqual({ error: 'visibility does not have a valid value' });

    // The private fork is hidden from non-members in the forks listing and by id.
    expect((await expectJson(await api(`/projects/${source.id}/forks`, { as: 'alice' }), 200)).map((p: { id: number }) => p.id)).toEqual([inGroup.id]);
    expect((await expectJson(await api(`/projects/${source.id}/forks`, { as: 'dave' }), 200)).map((p: { id: number }) => p.id)).toEqual([privateFork.id, inGroup.id]);
  });

  it('refuses forks of projects the caller may not fork: hidden (404 Project), Guests and disabled forking (404)', async () => {
    const secret = await create('alice', { name: 'Secret', visibility: 'private' });
    expect(await expectJson(await fork(secret.id, 'bob'), 404)).toEqual({ message: '404 Project Not Found' });
    expect(await expectJson(await api(`/projects/${secret.id}/forks`, { as: 'bob' }), 404)).toEqual({ message: '404 Project Not Found' });
    await addMember(secret.id, 'bob', 10);
    expect(await expectJson(await fork(secret.id, 'bob'), 404)).toEqual({ message: '404 Not Found' });
    await expectJson(await api(`/projects/${secret.id}/members/${ids.bob}`, { ...json('PUT', { access_level: 20 }) }), 200);
    const reporterFork = await expectJson(await fork(secret.id, 'bob'), 201);
    expect(reporterFork).toMatchObject({ visibility: 'private', forked_from_project: { id: secret.id } });
    // Once bob cannot read the source any more, his fork no longer shows it (mr_default_target_self stays: it is a fork).
    await expectJson(await api(`/projects/${secret.id}/members/${ids.bob}`, { method: 'DELETE' }), 204);
    const seen = await expectJson(await api(`/projects/${reporterFork.id}`, { as: 'bob' }), 200);
    expect(seen).not.toHaveProperty('forked_from_project');
    expect(seen).toMatchObject({ mr_default_target_self: false });

    const closed = await create('alice', { name: 'Closed', visibility: 'public', forking_access_level: 'disabled' });
    expect(await expectJson(await fork(closed.id, 'bob'), 404)).toEqual({ message: '404 Not Found' });
    expect(await expectJson(await fork(closed.id, undefined), 404)).toEqual({ message: '404 Not Found' });
    const membersOnly = await create('alice', { name: 'Members Only', visibility: 'public', forking_access_level: 'private' });
    expect(await expectJson(await fork(membersOnly.id, 'bob'), 404)).toEqual({ message: '404 Not Found' });
    await addMember(membersOnly.id, 'bob', 10);
    await expectJson(await fork(membersOnly.id, 'bob'), 201);
  });

  it('links and unlinks an existing project as a fork (Owners), with GitLab’s 400, 401, 403, 404, 409 and 304', async () => {
    const source = await create('alice', { name: 'Origin', visibility: 'internal' });
    const mine = await create('carol', { name: 'Mine' });
    const linked = await expectJson(await api(`/projects/${mine.id}/fork/${source.id}`, { method: 'POST', as: 'carol' }), 201);
    expect(linked).toMatchObject({ id: mine.id, forked_from_project: { id: source.id }, mr_default_target_self: false, import_status: 'none' });
    expect(await expectJson(await api(`/projects/${source.id}`, { as: 'alice' }), 200)).toMatchObject({ forks_count: 1 });
    expect(await expectJson(await api(`/projects/${mine.id}/fork/${source.id}`, { method: 'POST', as: 'carol' }), 409)).toEqual({ message: 'Project already forked' });
    expect(await expectJson(await api(`/projects/${mine.id}/fork/${mine.id}`, { method: 'POST', as: 'carol' }), 400)).toEqual({ message: 'Target project cannot be equal to source project' });

    const other = await create('carol', { name: 'Other' });
    expect(await expectJson(await api(`/projects/${other.id}/fork/999999`, { method: 'POST', as: 'carol' }), 404)).toEqual({ message: '404 Project Not Found' });
    const hidden = await create('alice', { name: 'Hidden', visibility: 'private' });
    expect(await expectJson(await api(`/projects/${other.id}/fork/${hidden.id}`, { method: 'POST', as: 'carol' }), 404)).toEqual({ message: '404 Project Not Found' });
    const noFork = await create('alice', { name: 'No Fork', visibility: 'public', forking_access_level: 'disabled' });
    expect(await expectJson(await api(`/projects/${other.id}/fork/${noFork.id}`, { method: 'POST', as: 'carol' }), 403)).toEqual({ message: '403 Forbidden' });
    await addMember(other.id, 'dave', 40);
    expect(await expectJson(await api(`/projects/${other.id}/fork/${source.id}`, { method: 'POST', as: 'dave' }), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api(`/projects/${other.id}/fork`, { method: 'DELETE', as: 'dave' }), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api(`/projects/${other.id}/fork/${source.id}`, { method: 'POST', as: null }), 401)).toEqual({ message: '401 Unauthorized' });
    // An Owner who may no longer create projects in the project's namespace (a group where they are only Developer).
    const group = await expectJson(await api('/groups', { ...json('POST', { name: 'Linkers', path: 'linkers' }), as: 'alice' }), 201);
    const inGroup = await create('alice', { name: 'In Group', namespace_id: group.id });
    await expectJson(await api(`/groups/${group.id}/members`, { ...json('POST', { user_id: ids.dave, access_level: 30 }), as: 'alice' }), 201);
    await addMember(inGroup.id, 'dave', 40);
    await expectJson(await api(`/projects/${inGroup.id}/members/${ids.dave}`, { ...json('PUT', { access_level: 40 }) }), 200);
    expect(await expectJson(await api(`/projects/${inGroup.id}/fork/${source.id}`, { method: 'POST', as: 'dave' }), 403)).toEqual({ message: '403 Forbidden' });

    // Unlink: 204, then 304 (no body); forks_count follows.
    const unlinked = await api(`/projects/${mine.id}/fork`, { method: 'DELETE', as: 'carol' });
    expect(unlinked.status).toBe(204);
    expect(await expectJson(await api(`/projects/${mine.id}`, { as: 'carol' }), 200)).not.toHaveProperty('forked_from_project');
    expect(await expectJson(await api(`/projects/${source.id}`, { as: 'alice' }), 200)).toMatchObject({ forks_count: 0 });
    const again = await api(`/projects/${mine.id}/fork`, { method: 'DELETE', as: 'carol' });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('keeps forks when their source is deleted (no source any more) and counts down when a fork is deleted', async () => {
    const source = await create('alice', { name: 'Doomed', visibility: 'public' });
    const a = await expectJson(await fork(source.id, 'bob'), 201);
    const b = await expectJson(await fork(source.id, 'carol'), 201);
    // DELETE only marks a project (GitLab 18); permanently_remove with its renamed full path removes it at once.
    const removeForGood = async (p: { id: number; path_with_namespace: string }, as: string) => {
      expect(await expectJson(await api(`/projects/${p.id}`, { method: 'DELETE', as }), 202)).toEqual({ message: '202 Accepted' });
      expect(await expectJson(await api(permanentRemovalPath(p), { method: 'DELETE', as }), 202)).toEqual({ message: '202 Accepted' });
    };
    await removeForGood(b, 'carol');
    expect(await expectJson(await api(`/projects/${source.id}`, { as: 'alice' }), 200)).toMatchObject({ forks_count: 1 });
    await removeForGood(source, 'alice');
    const orphan = await expectJson(await api(`/projects/${a.id}`, { as: 'bob' }), 200);
    expect(orphan).not.toHaveProperty('forked_from_project');
    expect(orphan).not.toHaveProperty('mr_default_target_self');
    // The former fork can be linked again, to another project.
    const next = await create('alice', { name: 'Next', visibility: 'public' });
    await expectJson(await api(`/projects/${a.id}/fork/${next.id}`, { method: 'POST', as: 'bob' }), 201);
  });
});
