import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { projectsV1 } from '@glp/proto';
import type { Actor, CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { upsertNamespace } from '../../src/store/namespace-replica-store';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { noGroupsIdentity } from './identity-stub';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const root = user(1, 'root', true);
const alice = user(2, 'alice');
const bob = user(3, 'bob');
const anon: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const list = (r: Partial<projectsV1.ListProjectsRequest>) => projectsV1.ListProjectsRequest.fromPartial({ page: 1, perPage: 100, orderBy: 'id', sort: 'asc', ...r });

/** The new GET /projects filters against PostgreSQL, through the gRPC service implementation. */
describe('project listing filters', () => {
  const schema = uniqueName('it_listing');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  const identity = noGroupsIdentity();
  const ids: Record<string, number> = {};
  const names = async (actor: Actor, r: Partial<projectsV1.ListProjectsRequest>) =>
    (await service.listProjects(list(r), ctx(actor))).projects.map((p) => p.name);

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    for (const [id, u, name] of [[10, root, 'Administrator'], [20, alice, 'Alice Cooper'], [30, bob, 'bob']] as const) {
      await upsertNamespace(pool, { id, name, path: u.username, kind: 'user', full_path: u.username, parent_id: null, owner_id: u.id, owner_username: u.username, owner_name: name, owner_state: 'active', version: 1 });
    }
    const make = async (actor: Actor, name: string, visibility: projectsV1.Visibility, description = '') => {
      const { project } = await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, description, visibility }), ctx(actor));
      ids[name] = Number(project!.id);
    };
    const PUBLIC = projectsV1.Visibility.VISIBILITY_PUBLIC;
    const PRIVATE = projectsV1.Visibility.VISIBILITY_PRIVATE;
    await make(alice, 'Gadget', PUBLIC, 'a shiny gadget');
    await make(alice, 'Gizmo Tools', PUBLIC, 'tools for gizmos');
    await make(alice, 'Secret Lab', PRIVATE, 'hidden');
    await make(bob, 'Bob Widget', PUBLIC, 'widget by bob');
    await make(root, 'Root Storage', PUBLIC);
    await pool.query(`UPDATE projects SET last_activity_at = '2020-01-01T00:00:00Z' WHERE id = $1`, [ids.Gadget]);
    await pool.query(`UPDATE projects SET last_activity_at = '2021-06-01T00:00:00Z' WHERE id = $1`, [ids['Gizmo Tools']]);
    await pool.query(`UPDATE projects SET settings = settings || '{"issuesAccessLevel":"disabled","mergeRequestsAccessLevel":"private"}' WHERE id = $1`, [ids['Bob Widget']]);
    await pool.query(`UPDATE projects SET settings = settings || '{"issuesAccessLevel":"private"}' WHERE id = $1`, [ids.Gadget]);
    await pool.query(`UPDATE projects SET repository_storage = 'shard2' WHERE id = $1`, [ids['Root Storage']]);
    await pool.query(`INSERT INTO stars (project_id, user_id) VALUES ($1, 3), ($2, 3), ($2, 2)`, [ids.Gadget, ids['Bob Widget']]);
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('starred: the caller\'s stars (ignored anonymously); starred_by_user_id: that user\'s, visible to the caller', async () => {
    expect(await names(bob, { starred: true })).toEqual(['Gadget', 'Bob Widget']);
    expect(await names(alice, { starred: true })).toEqual(['Bob Widget']);
    expect((await names(anon, { starred: true })).length).toBe(4);
    expect(await names(anon, { starredByUserId: 3 })).toEqual(['Gadget', 'Bob Widget']);
    expect(await names(bob, { starredByUserId: 3, starred: true, search: 'gadget' })).toEqual(['Gadget']);
  });

  it('last_activity_after / last_activity_before are strict bounds', async () => {
    expect(await names(root, { lastActivityBefore: new Date('2021-06-01T00:00:00Z') })).toEqual(['Gadget']);
    expect(await names(root, { lastActivityAfter: new Date('2020-01-01T00:00:00Z'), lastActivityBefore: new Date('2022-01-01T00:00:00Z') })).toEqual(['Gizmo Tools']);
  });

  it('with_issues_enabled / with_merge_requests_enabled: enabled for all, private for members (and admins)', async () => {
    expect(await names(anon, { withIssuesEnabled: true })).toEqual(['Gizmo Tools', 'Root Storage']);
    expect(await names(alice, { withIssuesEnabled: true })).toEqual(['Gadget', 'Gizmo Tools', 'Secret Lab', 'Root Storage']);
    expect(await names(alice, { withMergeRequestsEnabled: true })).toEqual(['Gadget', 'Gizmo Tools', 'Secret Lab', 'Root Storage']);
    expect(await names(bob, { withMergeRequestsEnabled: true })).toEqual(['Gadget', 'Gizmo Tools', 'Bob Widget', 'Root Storage']);
    expect(await names(root, { withIssuesEnabled: true, withMergeRequestsEnabled: true })).toEqual(['Gadget', 'Gizmo Tools', 'Secret Lab', 'Root Storage']);
  });

  it('search_namespaces matches the namespace full path and name too', async () => {
    expect(await names(anon, { search: 'alice' })).toEqual([]);
    expect(await names(anon, { search: 'alice', searchNamespaces: true })).toEqual(['Gadget', 'Gizmo Tools']);
    expect(await names(anon, { search: 'alice/giz', searchNamespaces: true })).toEqual(['Gizmo Tools']);
    expect(await names(anon, { search: 'cooper gadget', searchNamespaces: true })).toEqual(['Gadget']);
    expect(await names(anon, { search: 'ali wid', searchNamespaces: true })).toEqual([]);
  });

  it('order_by=similarity ranks the closest first among the caller\'s projects; without search it is the default', async () => {
    expect(await names(alice, { search: 'gadget', orderBy: 'similarity' })).toEqual(['Gadget']);
    expect(await names(alice, { search: 'gi', orderBy: 'similarity' })).toEqual([]);
    expect(await names(alice, { search: 'tools', orderBy: 'similarity' })).toEqual(['Gizmo Tools']);
    // Bob's widget matches "widget" but is not alice's: similarity limits to the caller's projects.
    expect(await names(alice, { search: 'widget', orderBy: 'similarity' })).toEqual([]);
    await pool.query(`UPDATE projects SET description = 'gadget gadget' WHERE id = $1`, [ids['Gizmo Tools']]);
    expect(await names(alice, { search: 'gadget', orderBy: 'similarity' })).toEqual(['Gadget', 'Gizmo Tools']);
    expect(await names(alice, { orderBy: 'similarity', sort: 'asc' })).toEqual(await names(alice, { orderBy: 'created_at', sort: 'asc' }));
    expect(await names(anon, { search: 'gadget', orderBy: 'similarity', sort: 'asc' })).toEqual(['Gadget', 'Gizmo Tools']);
  });

  it('with_programming_language matches nothing when sent (empty string too); repository_storage for admins only', async () => {
    expect(await names(root, { withProgrammingLanguage: 'Ruby' })).toEqual([]);
    expect(await names(root, { withProgrammingLanguage: '' })).toEqual([]);
    expect(await names(root, { repositoryStorage: 'shard2' })).toEqual(['Root Storage']);
    expect((await names(alice, { repositoryStorage: 'shard2' })).length).toBe(5);
  });

  it('skip_count (keyset) does not count', async () => {
    const res = await service.listProjects(list({ skipCount: true, perPage: 2, orderBy: 'id', sort: 'desc', idBefore: ids['Root Storage'] }), ctx(root));
    expect(res.total).toBe(-1);
    expect(res.projects.map((p) => p.name)).toEqual(['Bob Widget', 'Secret Lab']);
  });
});
