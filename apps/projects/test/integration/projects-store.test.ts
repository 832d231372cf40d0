import { decodeEnvelope, EventTypes, unpackPayload } from '@glp/events';
import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { identityV1, projectsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { upsertNamespace } from '../../src/store/namespace-replica-store';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { findProjectsByIds } from '../../src/store/projects-store';
import { noGroupsIdentity } from './identity-stub';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const root = user(1, 'root', true);
const alice = user(2, 'alice');
const bob = user(3, 'bob');
const anon: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const req = (r: Partial<projectsV1.CreateProjectRequest>) => projectsV1.CreateProjectRequest.fromPartial(r);
const list = (r: Partial<projectsV1.ListProjectsRequest>) => projectsV1.ListProjectsRequest.fromPartial({ page: 1, perPage: 20, orderBy: 'id', sort: 'asc', ...r });

describe('projects against PostgreSQL', () => {
  const schema = uniqueName('it_projects');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  // identity as seen from projects: bob's namespace exists only there (the event has not arrived yet); nobody here
  // belongs to a group, and any user id has the default projects_limit.
  const identity = {
    ...noGroupsIdentity(),
    getNamespace: jest.fn(async (r: identityV1.GetNamespaceRequest) => {
      if (r.selector?.$case === 'fullPath' && r.selector.value === 'bob') {
        return { namespace: identityV1.Namespace.fromPartial({ id: 30, name: 'bob', path: 'bob', kind: 'user', fullPath: 'bob', owner: { id: 3, username: 'bob', name: 'Bob' }, version: 1 }), callerAccessLevel: 50 };
      }
      throw new DomainError('not_found', 'Namespace');
    }),
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    for (const [id, u] of [[10, root], [20, alice]] as const) {
      await upsertNamespace(pool, { id, name: u.username, path: u.username, kind: 'user', full_path: u.username, parent_id: null, owner_id: u.id, owner_username: u.username, owner_name: u.username, owner_state: 'active', version: 1 });
    }
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('creates in the personal namespace with an owner membership and ProjectCreated in the outbox', async () => {
    const { project } = await service.createProject(req({ name: 'Alpha Project', description: 'first', visibility: projectsV1.Visibility.VISIBILITY_PUBLIC }), ctx(alice));
    expect(project).toMatchObject({ name: 'Alpha Project', path: 'alpha-project', namespace: { fullPath: 'alice' }, owner: { username: 'alice' }, callerAccessLevel: 50 });
    const outbox = await pool.query('SELECT event_type, message_key FROM outbox WHERE message_key = $1', [`project:${project!.id}`]);
    expect(outbox.rows).toEqual([{ event_type: 'gitlab.events.v1.ProjectCreated', message_key: `project:${project!.id}` }]);
    const members = await pool.query('SELECT user_id, access_level FROM project_members WHERE project_id = $1', [project!.id]);
    expect(members.rows).toEqual([{ user_id: 2, access_level: 50 }]);
  });

  it('fetches a namespace the replica lacks from identity, then keeps it', async () => {
    const { project } = await service.createProject(req({ path: 'bobs' }), ctx(bob));
    expect(project).toMatchObject({ name: 'bobs', namespace: { id: 30, fullPath: 'bob' } });
    expect(identity.getNamespace).toHaveBeenCalledTimes(1);
    await service.createProject(req({ path: 'bobs-2' }), ctx(bob));
    expect(identity.getNamespace).toHaveBeenCalledTimes(1);
  });

  it('rejects a namespace the caller cannot create in, and duplicates, writing nothing', async () => {
    const before = (await pool.query('SELECT (SELECT count(*) FROM projects) + (SELECT count(*) FROM outbox) AS n')).rows[0].n;
    await expect(service.createProject(req({ name: 'x', namespaceId: 10 }), ctx(alice))).rejects.toMatchObject({ kind: 'invalid', fields: { namespace: ['is not valid'] } });
    await expect(service.createProject(req({ name: 'ALPHA PROJECT' }), ctx(alice))).rejects.toMatchObject({ kind: 'invalid', fields: { name: ['has already been taken'], path: ['has already been taken'] } });
    await expect(service.createProject(req({ name: 'x' }), ctx(anon))).rejects.toMatchObject({ kind: 'unauthenticated' });
    const after = (await pool.query('SELECT (SELECT count(*) FROM projects) + (SELECT count(*) FROM outbox) AS n')).rows[0].n;
    expect(after).toBe(before);
  });

  it('lets the same name exist in two namespaces, and an admin create in another user\'s namespace', async () => {
    const { project } = await service.createProject(req({ name: 'Alpha Project', namespaceId: 20 }), ctx(root)).catch((e) => ({ project: undefined, e }));
    expect(project).toBeUndefined(); // taken in alice's namespace
    const mine = await service.createProject(req({ name: 'Alpha Project' }), ctx(root));
    expect(mine.project!.namespace!.fullPath).toBe('root');
  });

  it('applies visibility on reads: 404 for hidden projects, by id and by path', async () => {
    const { project } = await service.createProject(req({ name: 'secret' }), ctx(alice));
    const id = project!.id;
    await expect(service.getProject({ selector: { $case: 'id', value: id } }, ctx(bob))).rejects.toMatchObject({ kind: 'not_found', message: 'Project' });
    await expect(service.getProject({ selector: { $case: 'fullPath', value: 'alice/secret' } }, ctx(anon))).rejects.toMatchObject({ kind: 'not_found' });
    expect((await service.getProject({ selector: { $case: 'fullPath', value: 'ALICE/Secret' } }, ctx(alice))).project!.id).toBe(id);
    expect((await service.getProject({ selector: { $case: 'id', value: id } }, ctx(root))).project!.callerAccessLevel).toBe(0);
  });

  it('reads a few projects by id with the generic plan of its prepared statement, not a new plan each time', async () => {
    const ids = (await pool.query<{ id: string }>('SELECT id FROM projects ORDER BY id')).rows.map((r) => Number(r.id));
    expect(ids.length).toBeGreaterThanOrEqual(5);
    // A connection of its own: the plan cache is per connection, and it starts with this statement unprepared.
    const own = createPool({ url: infraFromEnv().databaseUrl, schema, max: 1 });
    const client = await own.connect();
    try {
      // Batches of GetProject reads come in any size; fewer than 10 ids used to be planned again on every execution.
      const sizes = [1, 2, 3, 5, 1, 2, 4, 1, 3, 2];
      for (let i = 0; i < 30; i++) {
        const asked = [...ids.slice(i % 2, (i % 2) + sizes[i % sizes.length]!)].reverse();
        const rows = await findProjectsByIds(client, root.id, [...asked, 999_999_999]);
        expect(rows.map((r) => Number(r.id))).toEqual(asked);
      }
      const { rows } = await client.query<{ generic_plans: number; custom_plans: number }>(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'project_rows_by_ids'",
      );
      // PostgreSQL tries five custom plans, then keeps the generic one when it is not costlier.
      expect(rows).toEqual([{ generic_plans: 25, custom_plans: 5 }]);
    } finally {
      client.release();
      await own.end();
    }
  });

  it('lists what each caller may see, filtered, ordered and counted in one round', async () => {
    await service.createProject(req({ name: 'inner', visibility: projectsV1.Visibility.VISIBILITY_INTERNAL, topics: ['Go', 'db'] }), ctx(alice));
    const names = async (actor: Actor, r: Partial<projectsV1.ListProjectsRequest> = {}) =>
      (await service.listProjects(list(r), ctx(actor))).projects.map((p) => p.pathWithNamespace || `${p.namespace!.fullPath}/${p.path}`);
    expect(await names(anon)).toEqual(['alice/alpha-project']);
    expect(await names(bob)).toEqual(['alice/alpha-project', 'bob/bobs', 'bob/bobs-2', 'alice/inner']);
    expect((await names(root)).length).toBe(6);
    expect(await names(alice, { owned: true, orderBy: 'name', sort: 'desc' })).toEqual(['alice/secret', 'alice/inner', 'alice/alpha-project']);
    expect(await names(bob, { topics: ['go'] })).toEqual(['alice/inner']);
    expect(await names(bob, { topics: ['go', 'rust'] })).toEqual([]);
    expect(await names(bob, { topics: ['Go', 'db'] })).toEqual(['alice/inner']);
    expect(await names(root, { search: 'alpha', visibility: projectsV1.Visibility.VISIBILITY_PUBLIC })).toEqual(['alice/alpha-project']);
    const page = await service.listProjects(list({ perPage: 2, page: 2 }), ctx(root));
    expect(page.projects).toHaveLength(2);
    expect(page.total).toBe(6);
  });

  it('uses an index for the default listing and lookups (no sequential scan on projects)', async () => {
    await pool.query('SET enable_seqscan = off');
    const plan = await pool.query("EXPLAIN SELECT id FROM projects WHERE visibility = 'public' AND NOT pending_delete ORDER BY visibility, id LIMIT 20");
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index/);
    await pool.query('RESET enable_seqscan');
  });

  it('tells repo-admin, in ProjectCreated, the default branch and whether to commit a README', async () => {
    const { project } = await service.createProject(req({ name: 'Readme', defaultBranch: 'trunk', initializeWithReadme: true }), ctx(alice));
    const { rows } = await pool.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE message_key = $1', [`project:${project!.id}`]);
    expect(unpackPayload(decodeEnvelope(rows[0]!.payload), EventTypes.ProjectCreated)).toMatchObject({ defaultBranch: 'trunk', initializeWithReadme: true, pathWithNamespace: 'alice/Readme' });
    expect(project!.defaultBranch).toBe('trunk');
  });
});
