import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload } from '@glp/events';
import { identityV1, projectsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { onUserDeleted } from '../../src/events/user-consumer';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const owner = user(1, 'owner');
const dev = user(2, 'dev');
const alice = user(3, 'alice');
const bob = user(4, 'bobby');
const stranger = user(5, 'stranger');
const admin = user(9, 'root', true);
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const USERS: Actor[] = [owner, dev, alice, bob, stranger, admin];
const NAMES: Record<string, string> = { owner: 'Olga Owner', dev: 'Dev Eloper', alice: 'Alice Bobby', bobby: 'Bob', stranger: 'Stranger', root: 'Administrator' };
const NAMESPACE_ID = 100;

describe('stars, starrers and archiving against PostgreSQL', () => {
  const schema = uniqueName('it_stars');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  let publicId = 0;
  let privateId = 0;
  // identity as seen from projects: users only (personal namespace, no groups).
  const identity = {
    getNamespace: jest.fn(async () => ({ namespace: undefined, callerAccessLevel: 0 })),
    getUserGroupAccess: jest.fn(async () => ({ groups: [] })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const found = USERS.find((u) => (r.selector?.$case === 'id' ? u.id === r.selector.value : u.username === r.selector?.value));
      if (!found) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: found.id, username: found.username, name: NAMES[found.username]!, state: 'active', projectsLimit: 100000 }) };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
  const sel = (id: number) => ({ selector: { $case: 'id' as const, value: id } });
  const events = async (type: string) => {
    const { rows } = await pool.query<{ message_key: string; payload: Buffer }>('SELECT message_key, payload FROM outbox WHERE event_type = $1 ORDER BY id', [type]);
    return rows.map((r) => ({ key: r.message_key, envelope: decodeEnvelope(r.payload) }));
  };
  const starredEvents = async () =>
    (await events(EventTypes.ProjectStarred.typeName)).map((e) => unpackPayload(e.envelope, EventTypes.ProjectStarred));
  const starCount = async (id: number) => (await pool.query<{ star_count: number }>('SELECT star_count FROM projects WHERE id = $1', [id])).rows[0]!.star_count;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    await upsertNamespace(pool, {
      id: NAMESPACE_ID, name: 'owner', path: 'owner', kind: 'user', full_path: 'owner', parent_id: null, owner_id: owner.id,
      owner_username: 'owner', owner_name: 'Olga Owner', owner_state: 'active', version: 1,
    });
    const create = async (name: string, visibility: projectsV1.Visibility) =>
      (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId: NAMESPACE_ID, visibility }), ctx(owner))).project!.id;
    publicId = await create('open', projectsV1.Visibility.VISIBILITY_PUBLIC);
    privateId = await create('secret', projectsV1.Visibility.VISIBILITY_PRIVATE);
    await service.addProjectMember({ project: sel(publicId), userId: dev.id, username: '', accessLevel: 30, expiresAt: '' }, ctx(owner));
    await service.addProjectMember({ project: sel(privateId), userId: dev.id, username: '', accessLevel: 30, expiresAt: '' }, ctx(owner));
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('stars and unstars as the caller, keeping star_count in step; a repeat is not_modified and changes nothing', async () => {
    const before = (await service.getProject(sel(publicId), ctx(owner))).project!;
    const { project } = await service.starProject({ project: sel(publicId) }, ctx(alice));
    expect(project).toMatchObject({ id: publicId, starCount: 1, callerAccessLevel: 0 });
    expect(project!.updatedAt).toEqual(before.updatedAt); // a star does not touch the project (GitLab's counter update)
    const again = await rejection(service.starProject({ project: sel(publicId) }, ctx(alice)));
    expect(again.kind).toBe('not_modified');
    expect(await starCount(publicId)).toBe(1);

    expect((await service.starProject({ project: sel(publicId) }, ctx(bob))).project!.starCount).toBe(2);
    expect((await service.starProject({ project: sel(publicId) }, ctx(owner))).project).toMatchObject({ starCount: 3, callerAccessLevel: 50 });
    expect((await service.unstarProject({ project: sel(publicId) }, ctx(owner))).project!.starCount).toBe(2);
    const notStarred = await rejection(service.unstarProject({ project: sel(publicId) }, ctx(owner)));
    expect(notStarred.kind).toBe('not_modified');
    expect(await starCount(publicId)).toBe(2);
    expect((await service.getProject(sel(publicId), ctx(stranger))).project!.starCount).toBe(2);

    expect(await starredEvents()).toEqual([
      { projectId: publicId, userId: alice.id, starred: true, starCount: 1 },
      { projectId: publicId, userId: bob.id, starred: true, starCount: 2 },
      { projectId: publicId, userId: owner.id, starred: true, starCount: 3 },
      { projectId: publicId, userId: owner.id, starred: false, starCount: 2 },
    ]);
    const [first] = await events(EventTypes.ProjectStarred.typeName);
    expect(first!.key).toBe(`project:${publicId}`);
    expect(first!.envelope.actor).toMatchObject({ userId: alice.id, username: 'alice' });
  });

  it('counts concurrent stars of one user once', async () => {
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => service.starProject({ project: sel(publicId) }, ctx(dev))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as DomainError).kind)).toEqual(['not_modified', 'not_modified', 'not_modified']);
    expect(await starCount(publicId)).toBe(3);
    await service.unstarProject({ project: sel(publicId) }, ctx(dev));
    expect(await starCount(publicId)).toBe(2);
  });

  it('hides a project the caller cannot read (not_found), and refuses callers who are not signed in', async () => {
    const hidden = await rejection(service.starProject({ project: sel(privateId) }, ctx(stranger)));
    expect([hidden.kind, hidden.message]).toEqual(['not_found', 'Project']);
    const hiddenList = await rejection(service.listStarrers({ project: sel(privateId), search: '', page: 1, perPage: 20 }, ctx(anonymous)));
    expect([hiddenList.kind, hiddenList.message]).toEqual(['not_found', 'Project']);
    const missing = await rejection(service.unstarProject({ project: sel(999999) }, ctx(alice)));
    expect([missing.kind, missing.message]).toEqual(['not_found', 'Project']);
    expect((await rejection(service.starProject({ project: sel(publicId) }, ctx(anonymous)))).kind).toBe('unauthenticated');
    // a member of the private project stars it
    expect((await service.starProject({ project: sel(privateId) }, ctx(dev))).project!.starCount).toBe(1);
  });

  it('lists starrers in the order they starred, paginated with a total; anonymous callers read those of a public project', async () => {
    const all = await service.listStarrers({ project: sel(publicId), search: '', page: 1, perPage: 20 }, ctx(anonymous));
    expect(all.total).toBe(2);
    expect(all.starrers.map((s) => [s.user!.username, s.user!.name, s.user!.state])).toEqual([['alice', 'Alice Bobby', 'active'], ['bobby', 'Bob', 'active']]);
    expect(all.starrers[0]!.starredSince!.getTime()).toBeLessThanOrEqual(all.starrers[1]!.starredSince!.getTime());
    const second = await service.listStarrers({ project: sel(publicId), search: '', page: 2, perPage: 1 }, ctx(stranger));
    expect([second.total, second.starrers.map((s) => s.user!.username)]).toEqual([2, ['bobby']]);
    expect((await service.listStarrers({ project: sel(publicId), search: '', page: 3, perPage: 1 }, ctx(stranger))).starrers).toEqual([]);
  });

  it('searches starrers by username or name like GitLab: exact username first, then exact name, then by name', async () => {
    const search = async (q: string) =>
      (await service.listStarrers({ project: sel(publicId), search: q, page: 1, perPage: 20 }, ctx(stranger))).starrers.map((s) => s.user!.username);
    expect(await search('bob')).toEqual(['bobby', 'alice']); // "Bob" is bobby's exact name; alice's name contains it
    expect(await search('ALICE')).toEqual(['alice']);
    expect(await search('@bobby')).toEqual(['bobby', 'alice']); // exact username, then alice (name "Alice Bobby")
    expect(await search('alice bobby')).toEqual(['alice']); // every term in the same column
    expect(await search('B')).toEqual(['alice', 'bobby']); // no minimum length; same rank: by name
    expect(await search('nobody')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('@')).toEqual([]);
    const counted = await service.listStarrers({ project: sel(publicId), search: 'bob', page: 1, perPage: 1 }, ctx(stranger));
    expect([counted.total, counted.starrers.length]).toEqual([2, 1]);
  });

  it('fetches starrers the users read model lacks from identity', async () => {
    await pool.query('DELETE FROM users WHERE id = $1', [bob.id]);
    identity.getUser.mockClear();
    const { starrers } = await service.listStarrers({ project: sel(publicId), search: '', page: 1, perPage: 20 }, ctx(stranger));
    expect(starrers.map((s) => s.user!.username)).toEqual(['alice', 'bobby']);
    expect(identity.getUser).toHaveBeenCalledTimes(1);
    expect((await pool.query('SELECT name FROM users WHERE id = $1', [bob.id])).rows).toEqual([{ name: 'Bob' }]);
  });

  it('archives and unarchives for Owners and administrators only, idempotently; each change is one ProjectUpdated', async () => {
    const denied = await rejection(service.archiveProject({ project: sel(publicId), archived: true }, ctx(dev)));
    expect(denied.kind).toBe('forbidden'); // a Developer reads it but may not archive
    expect((await rejection(service.archiveProject({ project: sel(publicId), archived: true }, ctx(alice)))).kind).toBe('forbidden');
    const hidden = await rejection(service.archiveProject({ project: sel(privateId), archived: true }, ctx(stranger)));
    expect([hidden.kind, hidden.message]).toEqual(['not_found', 'Project']);

    const before = (await service.getProject(sel(publicId), ctx(owner))).project!;
    const { project: archived } = await service.archiveProject({ project: sel(publicId), archived: true }, ctx(owner));
    expect(archived).toMatchObject({ id: publicId, archived: true, starCount: 2, callerAccessLevel: 50 });
    expect(archived!.updatedAt!.getTime()).toBeGreaterThan(before.updatedAt!.getTime());
    const { project: again } = await service.archiveProject({ project: sel(publicId), archived: true }, ctx(owner));
    expect(again).toEqual(archived); // unchanged, no write
    expect((await service.getProject(sel(publicId), ctx(stranger))).project!.archived).toBe(true);
    // an archived project can still be starred (GitLab only reads it)
    expect((await service.starProject({ project: sel(publicId) }, ctx(stranger))).project).toMatchObject({ archived: true, starCount: 3 });

    const { project: unarchived } = await service.archiveProject({ project: sel(publicId), archived: false }, ctx(admin));
    expect(unarchived).toMatchObject({ archived: false });
    await service.archiveProject({ project: sel(publicId), archived: false }, ctx(owner));

    const updated = await events(EventTypes.ProjectUpdated.typeName);
    expect(updated.map((e) => [e.key, unpackPayload(e.envelope, EventTypes.ProjectUpdated)])).toEqual([
      [`project:${publicId}`, { projectId: publicId, pathWithNamespace: 'owner/open', visibility: 'public', archived: true, changed: ['archived'], markedForDeletionOn: '', repositoryStorage: 'default' }],
      [`project:${publicId}`, { projectId: publicId, pathWithNamespace: 'owner/open', visibility: 'public', archived: false, changed: ['archived'], markedForDeletionOn: '', repositoryStorage: 'default' }],
    ]);
    expect(updated.map((e) => e.envelope.actor?.username)).toEqual(['owner', 'root']);
  });

  it("drops a deleted user's stars and lowers the star counts", async () => {
    const client = await pool.connect();
    try {
      await onUserDeleted(client, { id: stranger.id } as never);
    } finally {
      client.release();
    }
    expect(await starCount(publicId)).toBe(2);
    const { starrers, total } = await service.listStarrers({ project: sel(publicId), search: '', page: 1, perPage: 20 }, ctx(owner));
    expect([total, starrers.map((s) => s.user!.username)]).toEqual([2, ['alice', 'bobby']]);
  });
});
