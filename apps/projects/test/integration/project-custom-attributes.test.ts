import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { identityV1, projectsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext, type ClientCallOptions } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const owner = user(1, 'owner');
const alice = user(3, 'alice');
const admin = user(9, 'root', true);
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const OWNER_NS = 100;
const ALICE_NS = 103;
const GROUP_NS = 200;
const OTHER_GROUP_NS = 201;

const personal = (id: number, u: Actor) => ({
  id, name: u.username, path: u.username, kind: 'user', full_path: u.username, parent_id: null, owner_id: u.id,
  owner_username: u.username, owner_name: u.username, owner_state: 'active', version: 1,
});

describe('project custom attributes and creating a project for a user, against PostgreSQL', () => {
  const schema = uniqueName('it_custom_attrs');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  let publicId = 0;
  let privateId = 0;
  // identity as seen from projects: users, and two groups (alice is Maintainer of GROUP_NS only).
  const identity = {
    getNamespace: jest.fn(async (r: identityV1.GetNamespaceRequest, opts?: ClientCallOptions) => {
      const id = r.selector?.$case === 'id' ? r.selector.value : 0;
      if (id !== GROUP_NS && id !== OTHER_GROUP_NS) throw new DomainError('not_found', 'Namespace');
      const path = id === GROUP_NS ? 'team' : 'others';
      return {
        namespace: identityV1.Namespace.fromPartial({ id, name: path, path, kind: 'group', fullPath: path, version: 1 }),
        callerAccessLevel: id === GROUP_NS && opts?.actor?.id === alice.id ? 40 : 0,
      };
    }),
    getUserGroupAccess: jest.fn(async () => ({ groups: [] })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const found = [owner, alice, admin].find((u) => r.selector?.$case === 'id' && u.id === r.selector.value);
      if (!found) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: found.id, username: found.username, name: found.username, state: 'active', projectsLimit: 100000, isAdmin: found.admin }), view: 'admin' };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
  const sel = (id: number) => ({ selector: { $case: 'id' as const, value: id } });
  const stored = async (id: number) =>
    (await pool.query('SELECT key, value FROM project_custom_attributes WHERE project_id = $1 ORDER BY key', [id])).rows;
  const list = (actor: Actor, extra: Partial<projectsV1.ListProjectsRequest> = {}) =>
    service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ page: 1, perPage: 100, orderBy: 'id', sort: 'asc', ...extra }), ctx(actor));

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    await upsertNamespace(pool, personal(OWNER_NS, owner));
    await upsertNamespace(pool, personal(ALICE_NS, alice));
    const create = async (name: string, visibility: projectsV1.Visibility) =>
      (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId: OWNER_NS, visibility }), ctx(owner))).project!.id;
    publicId = await create('open', projectsV1.Visibility.VISIBILITY_PUBLIC);
    privateId = await create('secret', projectsV1.Visibility.VISIBILITY_PRIVATE);
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  describe('custom attributes', () => {
    it('sets (creates, then replaces), lists ordered by key, reads and deletes, for administrators', async () => {
      const set = (key: string, value: string) => service.setProjectCustomAttribute({ project: sel(privateId), key, value }, ctx(admin));
      expect(await set('zone', 'eu')).toEqual({ customAttribute: { key: 'zone', value: 'eu' } });
      expect(await set('color', 'blue')).toEqual({ customAttribute: { key: 'color', value: 'blue' } });
      expect(await set('zone', 'us')).toEqual({ customAttribute: { key: 'zone', value: 'us' } });
      expect(await stored(privateId)).toEqual([{ key: 'color', value: 'blue' }, { key: 'zone', value: 'us' }]);

      expect(await service.listProjectCustomAttributes({ project: sel(privateId) }, ctx(admin)))
        .toEqual({ customAttributes: [{ key: 'color', value: 'blue' }, { key: 'zone', value: 'us' }] });
      const byPath = { selector: { $case: 'fullPath' as const, value: 'OWNER/Secret' } };
      expect(await service.getProjectCustomAttribute({ project: byPath, key: 'zone' }, ctx(admin))).toEqual({ customAttribute: { key: 'zone', value: 'us' } });

      expect(await service.deleteProjectCustomAttribute({ project: sel(privateId), key: 'zone' }, ctx(admin))).toEqual({});
      expect(await stored(privateId)).toEqual([{ key: 'color', value: 'blue' }]);
    });

    it("answers GitLab's 404s: a missing project (before any permission check), a missing key (RecordNotFound), a missing attribute to delete", async () => {
      for (const actor of [admin, alice, anonymous]) {
        const missing = await rejection(service.listProjectCustomAttributes({ project: sel(999999) }, ctx(actor)));
        expect([missing.kind, missing.message]).toEqual(['not_found', '']);
      }
      const noKey = await rejection(service.getProjectCustomAttribute({ project: sel(publicId), key: 'nope' }, ctx(admin)));
      expect([noKey.kind, noKey.message]).toEqual(['not_found', 'record']);
      const noDelete = await rejection(service.deleteProjectCustomAttribute({ project: sel(publicId), key: 'nope' }, ctx(admin)));
      expect([noDelete.kind, noDelete.message]).toEqual(['not_found', 'Custom attribute']);
    });

    it('refuses everyone but administrators (403), even the project owner, and writes nothing', async () => {
      for (const actor of [owner, alice, anonymous]) {
        for (const call of [
          service.listProjectCustomAttributes({ project: sel(publicId) }, ctx(actor)),
          service.getProjectCustomAttribute({ project: sel(privateId), key: 'color' }, ctx(actor)),
          service.setProjectCustomAttribute({ project: sel(publicId), key: 'k', value: 'v' }, ctx(actor)),
          service.deleteProjectCustomAttribute({ project: sel(privateId), key: 'color' }, ctx(actor)),
        ]) {
          expect((await rejection(call)).kind).toBe('forbidden');
        }
      }
      expect(await stored(publicId)).toEqual([]);
      expect(await stored(privateId)).toEqual([{ key: 'color', value: 'blue' }]);
    });

    it('refuses a blank value (the model presence validation) and keeps the stored one', async () => {
      const err = await rejection(service.setProjectCustomAttribute({ project: sel(privateId), key: 'color', value: '  ' }, ctx(admin)));
      expect([err.kind, err.fields]).toEqual(['invalid', { value: ["can't be blank"] }]);
      expect(await stored(privateId)).toEqual([{ key: 'color', value: 'blue' }]);
    });

    it('filters listings by every pair, for administrators only (ignored for others)', async () => {
      const other = (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name: 'other', namespaceId: OWNER_NS, visibility: projectsV1.Visibility.VISIBILITY_PUBLIC }), ctx(owner))).project!.id;
      for (const [id, key, value] of [[publicId, 'color', 'blue'], [publicId, 'size', 'xl'], [other, 'color', 'blue'], [other, 'size', 's']] as const) {
        await service.setProjectCustomAttribute({ project: sel(id), key, value }, ctx(admin));
      }
      const ids = async (actor: Actor, customAttributes: projectsV1.CustomAttribute[]) => (await list(actor, { customAttributes })).projects.map((p) => p.id);
      expect(await ids(admin, [{ key: 'color', value: 'blue' }])).toEqual([privateId, publicId, other].sort((a, b) => a - b));
      expect(await ids(admin, [{ key: 'color', value: 'blue' }, { key: 'size', value: 'xl' }])).toEqual([publicId]);
      expect(await ids(admin, [{ key: 'color', value: 'Blue' }])).toEqual([]); // exact match, as GitLab's where(key:, value:)
      const { total } = await list(admin, { customAttributes: [{ key: 'size', value: 's' }] });
      expect(total).toBe(1);
      expect(await ids(alice, [{ key: 'size', value: 'xl' }])).toEqual([publicId, other]); // ignored: every public project
      expect(await ids(anonymous, [{ key: 'size', value: 'xl' }])).toEqual([publicId, other]);
    });

    it('fills custom_attributes of listed and single projects for administrators who ask, ordered by key', async () => {
      const listed = await list(admin, { withCustomAttributes: true, customAttributes: [{ key: 'color', value: 'blue' }] });
      const attrs = new Map(listed.projects.map((p) => [p.id, p.customAttributes]));
      expect(attrs.get(publicId)).toEqual([{ key: 'color', value: 'blue' }, { key: 'size', value: 'xl' }]);
      expect(attrs.get(privateId)).toEqual([{ key: 'color', value: 'blue' }]);
      expect((await list(admin, { withCustomAttributes: false })).projects.every((p) => p.customAttributes.length === 0)).toBe(true);
      expect((await list(alice, { withCustomAttributes: true })).projects.every((p) => p.customAttributes.length === 0)).toBe(true);

      const one = (actor: Actor, withCustomAttributes: boolean) =>
        service.getProject(projectsV1.GetProjectRequest.fromPartial({ selector: { $case: 'id', value: publicId }, withCustomAttributes }), ctx(actor));
      expect((await one(admin, true)).project!.customAttributes).toEqual([{ key: 'color', value: 'blue' }, { key: 'size', value: 'xl' }]);
      expect((await one(admin, false)).project!.customAttributes).toEqual([]);
      expect((await one(owner, true)).project!.customAttributes).toEqual([]);
    });

    it('are deleted with their project', async () => {
      const doomed = (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name: 'doomed', namespaceId: OWNER_NS }), ctx(owner))).project!.id;
      await service.setProjectCustomAttribute({ project: sel(doomed), key: 'k', value: 'v' }, ctx(admin));
      // Marked for deletion first (GitLab 18): the attributes stay with the project until it is really removed.
      expect(await service.deleteProject({ project: sel(doomed), permanentlyRemove: false, fullPath: '' }, ctx(owner))).toEqual({ marked: true });
      expect(await stored(doomed)).not.toEqual([]);
      const { project } = await service.getProject({ selector: { $case: 'id', value: doomed }, withCustomAttributes: false, statistics: false }, ctx(owner));
      expect(await service.deleteProject({ project: sel(doomed), permanentlyRemove: true, fullPath: `${project!.namespace!.fullPath}/${project!.path}` }, ctx(owner))).toEqual({ marked: false });
      expect(await stored(doomed)).toEqual([]);
      expect((await rejection(service.listProjectCustomAttributes({ project: sel(doomed) }, ctx(admin)))).kind).toBe('not_found');
    });
  });

  describe('creating a project for another user (user_id)', () => {
    const createFor = (caller: Actor, userId: number, extra: Partial<projectsV1.CreateProjectRequest> = {}) =>
      service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name: 'Made For You', userId, ...extra }), ctx(caller));

    it('creates it as that user: creator, Owner member, their personal namespace, and their ProjectCreated', async () => {
      const { project } = await createFor(admin, alice.id);
      expect(project).toMatchObject({ name: 'Made For You', path: 'made-for-you', creatorId: alice.id, namespace: { id: ALICE_NS, kind: 'user' }, owner: { id: alice.id } });
      const members = await pool.query('SELECT user_id, access_level FROM project_members WHERE project_id = $1', [project!.id]);
      expect(members.rows).toEqual([{ user_id: alice.id, access_level: 50 }]);
      const event = await pool.query("SELECT count(*)::int AS n FROM outbox WHERE event_type LIKE '%ProjectCreated' AND message_key = $1", [`project:${project!.id}`]);
      expect(event.rows[0].n).toBe(1);
      expect((await service.getProject({ selector: { $case: 'id', value: project!.id }, withCustomAttributes: false, statistics: false }, ctx(alice))).project!.callerAccessLevel).toBe(50);
    });

    it('decides a namespace_id for that user: a group they maintain, not one only the administrator may use', async () => {
      identity.getNamespace.mockClear();
      const { project } = await createFor(admin, alice.id, { namespaceId: GROUP_NS, name: 'team-project' });
      expect(project).toMatchObject({ creatorId: alice.id, namespace: { id: GROUP_NS, kind: 'group' } });
      expect(identity.getNamespace.mock.calls[0]![1]?.actor).toMatchObject({ id: alice.id, admin: false });
      const err = await rejection(createFor(admin, alice.id, { namespaceId: OTHER_GROUP_NS, name: 'not-allowed' }));
      expect([err.kind, err.fields]).toEqual(['invalid', { namespace: ['is not valid'] }]);
      const notHers = await rejection(createFor(admin, alice.id, { namespaceId: OWNER_NS, name: 'not-hers' }));
      expect([notHers.kind, notHers.fields]).toEqual(['invalid', { namespace: ['is not valid'] }]);
    });

    it('is refused to non-administrators (403), for an unknown user (404 User), and on a name taken in their namespace', async () => {
      const before = (await pool.query('SELECT count(*)::int AS n FROM projects')).rows[0].n;
      expect((await rejection(createFor(owner, alice.id, { name: 'sneaky' }))).kind).toBe('forbidden');
      const unknown = await rejection(createFor(admin, 424242));
      expect([unknown.kind, unknown.message]).toEqual(['not_found', 'User']);
      const taken = await rejection(createFor(admin, alice.id));
      expect([taken.kind, taken.fields]).toEqual(['invalid', { name: ['has already been taken'], path: ['has already been taken'] }]);
      expect((await pool.query('SELECT count(*)::int AS n FROM projects')).rows[0].n).toBe(before);
    });
  });
});
