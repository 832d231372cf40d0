import { Metadata } from '@grpc/grpc-js';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload, type PayloadType } from '@glp/events';
import { identityV1, projectsV1, repositoryEventsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { onNamespaceDeleted } from '../../src/events/namespace-consumer';
import { onRepositoryImportStateChanged } from '../../src/events/repository-import-consumer';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const alice = user(1, 'alice');
const bob = user(2, 'bob');
const carol = user(3, 'carol');
const NS = { alice: 101, bob: 102, carol: 103 } as const;
const { ImportState } = repositoryEventsV1;

/** Forks against PostgreSQL: the rows, forks_count, the outbox events and repo-admin's import reports. */
describe('forks against PostgreSQL', () => {
  const schema = uniqueName('it_forks');
  const topic = 'test.projects';
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  const identity = {
    getNamespace: jest.fn(async (r: identityV1.GetNamespaceRequest) => {
      const entry = Object.entries(NS).find(([name, id]) => (r.selector?.$case === 'id' ? r.selector.value === id : r.selector?.value === name));
      if (!entry) throw new DomainError('not_found', 'Namespace');
      const [name, id] = entry;
      return { namespace: identityV1.Namespace.fromPartial({ id, name, path: name, kind: 'user', fullPath: name, ownerId: [alice, bob, carol].find((u) => u.username === name)!.id }), callerAccessLevel: 0 };
    }),
    getGroup: jest.fn(async () => { throw new DomainError('not_found', 'Group'); }),
    getUserGroupAccess: jest.fn(async () => ({ groups: [] })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      // The creator's projects_limit (personal project limit): any user id has the default.
      if (r.selector?.$case !== 'id') throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: r.selector.value, username: `user${r.selector.value}`, state: 'active', projectsLimit: 100000 }) };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
  const sel = (id: number) => ({ selector: { $case: 'id' as const, value: id } });
  const payloads = async <T>(type: PayloadType<T>) => {
    const { rows } = await pool.query<{ message_key: string; payload: Buffer }>('SELECT message_key, payload FROM outbox WHERE event_type = $1 ORDER BY id', [type.typeName]);
    return rows.map((r) => ({ key: r.message_key, payload: unpackPayload(decodeEnvelope(r.payload), type) }));
  };
  const row = async (id: number) =>
    (await pool.query<{ import_status: string; import_error: string | null; forks_count: number }>('SELECT import_status, import_error, forks_count FROM projects WHERE id = $1', [id])).rows[0];
  const create = async (as: Actor, name: string, visibility = projectsV1.Visibility.VISIBILITY_PUBLIC) =>
    (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId: NS[as.username as keyof typeof NS], visibility }), ctx(as))).project!;
  const report = (projectId: number, state: repositoryEventsV1.ImportState, error = '') =>
    withTransaction(pool, (client) => onRepositoryImportStateChanged(client, { projectId, state, error }, topic));

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic, countLimit: 10000 });
    for (const u of [alice, bob, carol]) {
      const id = NS[u.username as keyof typeof NS];
      await upsertNamespace(pool, {
        id, name: u.username, path: u.username, kind: 'user', full_path: u.username, parent_id: null, owner_id: u.id,
        owner_username: u.username, owner_name: u.username, owner_state: 'active', version: 1,
      });
    }
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('creates the fork, its owner membership, its relation and the scheduled import in one transaction with ProjectCreated and ProjectForked', async () => {
    const source = await create(alice, 'lib');
    const { project } = await service.forkProject(projectsV1.ForkProjectRequest.fromPartial({ project: sel(source.id), branches: 'main' }), ctx(bob));
    expect(project).toMatchObject({ path: 'lib', importStatus: 'scheduled', forked: true, callerAccessLevel: 50, namespace: { id: NS.bob } });
    expect(project!.forkedFromProject).toMatchObject({ id: source.id, forksCount: 1, namespace: { fullPath: 'alice' } });
    expect(await row(source.id)).toMatchObject({ forks_count: 1 });
    const forked = (await payloads(EventTypes.ProjectForked)).filter((e) => e.payload.projectId === project!.id);
    expect(forked).toEqual([{
      key: `project:${project!.id}`,
      payload: {
        projectId: project!.id, forkedFromProjectId: source.id, pathWithNamespace: 'bob/lib', forkedFromPathWithNamespace: 'alice/lib',
        copyRepository: true, branches: 'main', repositoryStorage: 'default',
      },
    }]);
    expect((await payloads(EventTypes.ProjectCreated)).some((e) => e.payload.projectId === project!.id && e.payload.pathWithNamespace === 'bob/lib')).toBe(true);

    // A clash leaves nothing behind: no second row, no event, forks_count unchanged.
    const outboxBefore = (await pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n;
    const clash = await rejection(service.forkProject(projectsV1.ForkProjectRequest.fromPartial({ project: sel(source.id) }), ctx(bob)));
    expect(clash).toMatchObject({ kind: 'invalid', fields: { name: ['has already been taken'], path: ['has already been taken'] } });
    expect((await pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n).toBe(outboxBefore);
    expect(await row(source.id)).toMatchObject({ forks_count: 1 });
  });

  it('moves import_status only forward on repo-admin’s reports, with ProjectUpdated each time it moves', async () => {
    const source = await create(alice, 'imported');
    const fork = (await service.forkProject(projectsV1.ForkProjectRequest.fromPartial({ project: sel(source.id) }), ctx(carol))).project!;
    const updates = async () => (await payloads(EventTypes.ProjectUpdated)).filter((e) => e.payload.projectId === fork.id).map((e) => e.payload.changed);
    await report(fork.id, ImportState.IMPORT_STATE_FINISHED);
    expect(await row(fork.id)).toMatchObject({ import_status: 'finished', import_error: null });
    await report(fork.id, ImportState.IMPORT_STATE_STARTED);
    await report(fork.id, ImportState.IMPORT_STATE_FAILED, 'late');
    await report(fork.id, ImportState.IMPORT_STATE_UNSPECIFIED);
    await report(999999, ImportState.IMPORT_STATE_STARTED); // a project deleted meanwhile
    expect(await row(fork.id)).toMatchObject({ import_status: 'finished', import_error: null });
    expect(await updates()).toEqual([['import_status']]);

    const failing = (await service.forkProject(projectsV1.ForkProjectRequest.fromPartial({ project: sel(source.id), path: 'other', name: 'other' }), ctx(carol))).project!;
    await report(failing.id, ImportState.IMPORT_STATE_STARTED);
    await report(failing.id, ImportState.IMPORT_STATE_FAILED, 'disk full');
    expect(await row(failing.id)).toMatchObject({ import_status: 'failed', import_error: 'disk full' });
    expect((await service.getProject(sel(failing.id), ctx(carol))).project).toMatchObject({ importStatus: 'failed', importError: 'disk full' });
  });

  it('links and unlinks with ProjectForked / ProjectForkRemoved; deleting a source announces each orphaned fork', async () => {
    const source = await create(alice, 'base');
    const standalone = await create(bob, 'standalone');
    await service.linkFork({ project: sel(standalone.id), forkedFrom: sel(source.id) }, ctx(bob));
    expect(await row(source.id)).toMatchObject({ forks_count: 1 });
    expect((await payloads(EventTypes.ProjectForked)).find((e) => e.payload.projectId === standalone.id)?.payload).toMatchObject({ copyRepository: false, forkedFromProjectId: source.id });
    await service.unlinkFork({ project: sel(standalone.id) }, ctx(bob));
    expect((await rejection(service.unlinkFork({ project: sel(standalone.id) }, ctx(bob)))).kind).toBe('not_modified');
    expect(await row(source.id)).toMatchObject({ forks_count: 0 });

    const a = (await service.forkProject(projectsV1.ForkProjectRequest.fromPartial({ project: sel(source.id) }), ctx(bob))).project!;
    const b = (await service.forkProject(projectsV1.ForkProjectRequest.fromPartial({ project: sel(source.id) }), ctx(carol))).project!;
    // Marked first (GitLab 18): the forks stay linked until the source is really removed.
    expect(await service.deleteProject({ project: sel(source.id), permanentlyRemove: false, fullPath: '' }, ctx(alice))).toEqual({ marked: true });
    const marked = (await service.getProject(sel(source.id), ctx(alice))).project!;
    await service.deleteProject({ project: sel(source.id), permanentlyRemove: true, fullPath: `${marked.namespace!.fullPath}/${marked.path}` }, ctx(alice));
    const removed = (await payloads(EventTypes.ProjectForkRemoved)).map((e) => e.payload).filter((p) => p.forkedFromProjectId === source.id);
    // The unlink first, then one per fork of the deleted source.
    expect(removed[0]).toEqual({ projectId: standalone.id, forkedFromProjectId: source.id });
    expect(removed.slice(1).sort((x, y) => x.projectId - y.projectId)).toEqual([
      { projectId: a.id, forkedFromProjectId: source.id },
      { projectId: b.id, forkedFromProjectId: source.id },
    ]);
    const seen = (await service.getProject(sel(a.id), ctx(bob))).project!;
    expect(seen.forked).toBe(false);
    expect(seen.forkedFromProject).toBeUndefined();
    expect((await pool.query('SELECT count(*)::int AS n FROM project_forks WHERE forked_from_project_id = $1', [source.id])).rows[0].n).toBe(0);
  });

  it('a deleted namespace takes its projects’ fork relations with it, announcing the forks elsewhere', async () => {
    const source = await create(carol, 'carols');
    const fork = (await service.forkProject(projectsV1.ForkProjectRequest.fromPartial({ project: sel(source.id) }), ctx(alice))).project!;
    await withTransaction(pool, (client) => onNamespaceDeleted(client, { id: NS.carol }, topic));
    expect((await payloads(EventTypes.ProjectForkRemoved)).map((e) => e.payload)).toContainEqual({ projectId: fork.id, forkedFromProjectId: source.id });
    expect((await service.getProject(sel(fork.id), ctx(alice))).project!.forked).toBe(false);
  });
});
