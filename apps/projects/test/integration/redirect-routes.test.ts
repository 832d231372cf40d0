import { Metadata } from '@grpc/grpc-js';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { identityEventsV1, identityV1, projectsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { onNamespaceChanged } from '../../src/events/namespace-consumer';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace, type NamespaceReplica } from '../../src/store/namespace-replica-store';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const alice = user(1, 'alice');
const bob = user(2, 'bob');
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const { VISIBILITY_PRIVATE: PRIVATE, VISIBILITY_PUBLIC: PUBLIC } = projectsV1.Visibility;

/** Namespaces as identity knows them (alice's personal one, group "team", group "guild" with subgroup "guild/sub"). */
const NAMESPACES: NamespaceReplica[] = [
  { id: 10, name: 'alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, owner_id: 1, owner_username: 'alice', owner_name: 'Alice', owner_state: 'active', version: 1 },
  { id: 500, name: 'Team', path: 'team', kind: 'group', full_path: 'team', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 },
  { id: 600, name: 'Guild', path: 'guild', kind: 'group', full_path: 'guild', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 },
  { id: 601, name: 'Sub', path: 'sub', kind: 'group', full_path: 'guild/sub', parent_id: 600, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 },
];
const snapshot = (n: NamespaceReplica, change: Partial<NamespaceReplica> = {}) => {
  const ns = { ...n, ...change };
  return identityEventsV1.NamespaceChanged.fromPartial({
    namespace: { id: ns.id, name: ns.name, path: ns.path, kind: ns.kind, fullPath: ns.full_path, parentId: ns.parent_id ?? 0, version: ns.version },
  });
};

describe('redirect routes of renamed and moved projects against PostgreSQL', () => {
  const schema = uniqueName('it_redirects');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  // identity as seen from projects: alice owns every group; bob is in none.
  const identity = {
    getNamespace: jest.fn(async (r: identityV1.GetNamespaceRequest) => {
      const ns = NAMESPACES.find((n) => (r.selector?.$case === 'id' ? n.id === r.selector.value : n.full_path === r.selector?.value));
      if (!ns) throw new DomainError('not_found', 'Namespace');
      return {
        namespace: identityV1.Namespace.fromPartial({ id: ns.id, name: ns.name, path: ns.path, kind: ns.kind, fullPath: ns.full_path, parentId: ns.parent_id ?? 0, owner: ns.owner_id ? { id: ns.owner_id, username: 'alice' } : undefined, version: ns.version }),
        callerAccessLevel: 50,
      };
    }),
    getGroup: jest.fn(async () => ({ group: identityV1.Group.fromPartial({ id: 500, path: 'team', fullPath: 'team', visibility: 'public' }) })),
    getUserGroupAccess: jest.fn(async (r: identityV1.GetUserGroupAccessRequest) => ({
      groups: r.userId === alice.id ? [500, 600, 601, 602].map((groupId) => ({ groupId, accessLevel: 50 })) : [],
    })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const found = [alice, bob].find((u) => (r.selector?.$case === 'id' ? u.id === r.selector.value : u.username === r.selector?.value));
      if (!found) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: found.id, username: found.username, name: found.username, state: 'active', projectsLimit: 100000 }), view: 'admin' };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
  const byId = (id: number) => ({ selector: { $case: 'id' as const, value: id } });
  const byPath = (fullPath: string) => ({ selector: { $case: 'fullPath' as const, value: fullPath } });
  const create = async (name: string, namespaceId: number, visibility = PRIVATE) =>
    (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId, visibility }), ctx(alice))).project!.id;
  const rename = (id: number, path: string) =>
    service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({ project: byId(id), path }), ctx(alice));
  const get = (fullPath: string, as: Actor = alice) => service.getProject({ ...byPath(fullPath), withCustomAttributes: false, statistics: false }, ctx(as));
  const redirectsOf = async (id: number) =>
    (await pool.query<{ path: string }>('SELECT path FROM project_redirect_routes WHERE project_id = $1 ORDER BY id', [id])).rows.map((r) => r.path);
  const consume = (event: identityEventsV1.NamespaceChanged) => withTransaction(pool, (client) => onNamespaceChanged(client, event));

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    for (const ns of NAMESPACES) await upsertNamespace(pool, ns);
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('a renamed project is MOVED by its old path (with its id) once readable; hidden, it stays 404', async () => {
    const id = await create('app', 10);
    await rename(id, 'app-two');
    expect(await redirectsOf(id)).toEqual(['alice/app']);
    for (const old of ['alice/app', 'ALICE/App']) {
      expect(await rejection(get(old))).toMatchObject({ kind: 'moved', movedToId: id, message: 'Project' });
    }
    // The service raises it for writes too (the gateway answers 405 there).
    const write = await rejection(service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({ project: byPath('alice/app'), description: 'x' }), ctx(alice)));
    expect(write).toMatchObject({ kind: 'moved', movedToId: id });
    expect((await service.getProject({ ...byId(id), withCustomAttributes: false, statistics: false }, ctx(alice))).project!.description).not.toBe('x');
    // Hidden from the caller: the usual 404, never revealing the move.
    expect(await rejection(get('alice/app', bob))).toMatchObject({ kind: 'not_found', message: 'Project', movedToId: undefined });
    expect(await rejection(get('alice/app', anonymous))).toMatchObject({ kind: 'not_found' });
    // The live path, in any letter case, is the project itself.
    expect((await get('alice/app-two')).project!.id).toBe(id);
    expect((await get('Alice/APP-TWO')).project!.id).toBe(id);
    // A change of letter case leaves no redirect; a further rename adds one, and the first keeps leading here.
    await rename(id, 'App-Two');
    expect(await redirectsOf(id)).toEqual(['alice/app']);
    await rename(id, 'app-three');
    expect(await redirectsOf(id)).toEqual(['alice/app', 'alice/App-Two']);
    expect(await rejection(get('alice/app'))).toMatchObject({ kind: 'moved', movedToId: id });
    expect(await rejection(get('alice/app-two'))).toMatchObject({ kind: 'moved', movedToId: id });
  });

  it('a public project is moved for anyone who can read it, anonymous included', async () => {
    const id = await create('open', 10, PUBLIC);
    await rename(id, 'opened');
    expect(await rejection(get('alice/open', anonymous))).toMatchObject({ kind: 'moved', movedToId: id });
    expect(await rejection(get('alice/open', bob))).toMatchObject({ kind: 'moved', movedToId: id });
  });

  it('a transfer leaves the old full path, until a new project takes that path (the live project wins, the redirect goes)', async () => {
    const id = await create('mover', 10);
    const { project } = await service.transferProject(
      projectsV1.TransferProjectRequest.fromPartial({ project: byId(id), namespace: { $case: 'namespaceId', value: 500 } }), ctx(alice));
    expect(project!.namespace?.fullPath).toBe('team');
    expect(await redirectsOf(id)).toEqual(['alice/mover']);
    expect(await rejection(get('alice/mover'))).toMatchObject({ kind: 'moved', movedToId: id });
    expect((await get('team/mover')).project!.id).toBe(id);

    const taker = await create('Mover', 10);
    expect((await get('alice/mover')).project!.id).toBe(taker);
    expect(await redirectsOf(id)).toEqual([]);
    // The taker moving away leaves its own redirect: the path leads to the taker now, never back to the first project.
    await rename(taker, 'taken');
    expect(await rejection(get('alice/mover'))).toMatchObject({ kind: 'moved', movedToId: taker });
  });

  it('a project named by another param than the route’s :id follows the redirect (import_project_members source)', async () => {
    const source = await create('source', 10);
    await rename(source, 'source-two');
    const target = await create('target', 10);
    const res = await service.importProjectMembers({ project: byId(target), source: byPath('alice/source') }, ctx(alice));
    expect(res.status).toBe('success');
    await rename(target, 'target-two');
    expect(await rejection(service.importProjectMembers({ project: byPath('alice/target'), source: byId(source) }, ctx(alice))))
      .toMatchObject({ kind: 'moved', movedToId: target });
  });

  it('a group rename through the NamespaceChanged handler leaves the old path of every project below it, in that transaction', async () => {
    const api = await create('api', 600);
    const lib = await create('lib', 601);
    const [guild, sub] = [NAMESPACES[2]!, NAMESPACES[3]!];
    // identity sends one NamespaceChanged per namespace whose full path moved (the group and each descendant).
    await consume(snapshot(sub, { full_path: 'crew/sub', version: 2 }));
    await consume(snapshot(guild, { path: 'crew', full_path: 'crew', version: 2 }));
    expect(await redirectsOf(api)).toEqual(['guild/api']);
    expect(await redirectsOf(lib)).toEqual(['guild/sub/lib']);
    expect(await rejection(get('guild/api'))).toMatchObject({ kind: 'moved', movedToId: api });
    expect(await rejection(get('guild/sub/lib'))).toMatchObject({ kind: 'moved', movedToId: lib });
    expect((await get('crew/sub/lib')).project!.id).toBe(lib);

    // A replayed or stale event changes nothing; another change of the group (its name) leaves its redirects alone.
    await consume(snapshot(guild, { path: 'crew', full_path: 'crew', version: 2 }));
    await consume(snapshot(guild, { path: 'crew', full_path: 'crew', name: 'Crew', version: 3 }));
    expect(await redirectsOf(api)).toEqual(['guild/api']);

    // Redirects are per project (GitLab's rename_descendants): a project created after the rename has no old path.
    await create('late', 600);
    expect(await rejection(get('guild/late'))).toMatchObject({ kind: 'not_found' });

    // A new group taking the old path takes it back from the redirects at it and below it.
    await consume(snapshot({ ...guild, id: 602, name: 'Guild', path: 'guild', full_path: 'guild', version: 1 }));
    expect(await redirectsOf(api)).toEqual([]);
    expect(await redirectsOf(lib)).toEqual([]);
    expect(await rejection(get('guild/api'))).toMatchObject({ kind: 'not_found' });
    expect(await rejection(get('guild/sub/lib'))).toMatchObject({ kind: 'not_found' });
  });

  it('a namespace refreshed on demand (not through the consumer) moves the redirects as well', async () => {
    const team = NAMESPACES[1]!;
    const id = await create('tool', 500);
    await upsertNamespace(pool, { ...team, path: 'squad', full_path: 'squad', version: 7 });
    expect(await rejection(get('team/tool'))).toMatchObject({ kind: 'moved', movedToId: id });
    expect((await get('squad/tool')).project!.id).toBe(id);
  });

  it('deleting the project deletes its redirects (the old path is 404 again)', async () => {
    const id = await create('gone', 10);
    await rename(id, 'gone-two');
    expect(await redirectsOf(id)).toEqual(['alice/gone']);
    // Marked for deletion first (GitLab 18), then removed at once with permanently_remove and its current path.
    expect(await service.deleteProject({ project: byId(id), permanentlyRemove: false, fullPath: '' }, ctx(alice))).toEqual({ marked: true });
    const { project } = await service.getProject({ selector: { $case: 'id', value: id } }, ctx(alice));
    expect(await service.deleteProject({ project: byId(id), permanentlyRemove: true, fullPath: `${project!.namespace!.fullPath}/${project!.path}` }, ctx(alice))).toEqual({ marked: false });
    expect((await pool.query('SELECT count(*)::int AS n FROM project_redirect_routes WHERE project_id = $1', [id])).rows[0].n).toBe(0);
    expect(await rejection(get('alice/gone'))).toMatchObject({ kind: 'not_found' });
  });
});
