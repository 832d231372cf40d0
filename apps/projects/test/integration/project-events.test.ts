import { Metadata } from '@grpc/grpc-js';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { identityV1, projectsV1, repositoryEventsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { onRefPushed } from '../../src/events/push-activity-consumer';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const owner = user(1, 'owner');
const guest = user(5, 'guest');
const stranger = user(6, 'stranger');
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const USERS: Actor[] = [owner, guest, stranger];
const ZERO = '0'.repeat(40);
const SHA = 'c'.repeat(40);
const sel = (id: number) => ({ selector: { $case: 'id' as const, value: id } });

/** The events projects records and lists, against PostgreSQL: push consumption (bulk, gone projects) and who sees pushes. */
describe('project events against PostgreSQL', () => {
  const schema = uniqueName('it_events');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  const identity = {
    getNamespace: jest.fn(async () => ({ namespace: undefined, callerAccessLevel: 0 })),
    getGroup: jest.fn(async () => { throw new DomainError('not_found', 'Group'); }),
    getUserGroupAccess: jest.fn(async () => ({ groups: [] })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const found = USERS.find((u) => (r.selector?.$case === 'id' ? u.id === r.selector.value : u.username === r.selector?.value));
      if (!found) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: found.id, username: found.username, name: found.username, state: 'active', projectsLimit: 100000 }) };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
  const push = (projectId: number, ref: string, over: Partial<repositoryEventsV1.Push> = {}) => repositoryEventsV1.Push.fromPartial({
    projectId, ref, before: ZERO, after: SHA, pusher: { userId: owner.id, username: 'owner' }, commits: [{ id: SHA, message: 'Add things\n\nbody' }],
    totalCommitsCount: 1, pushedAt: new Date('2026-05-01T10:00:00Z'), refsInPush: 1, ...over,
  });
  const consume = (e: repositoryEventsV1.Push) => withTransaction(pool, (client) => onRefPushed(client, 'branch', e));
  const names = async (id: number, actor: Actor, over: Partial<projectsV1.ListProjectEventsRequest> = {}) =>
    (await service.listProjectEvents(projectsV1.ListProjectEventsRequest.fromPartial({ project: sel(id), sort: 'asc', page: 1, perPage: 100, ...over }), ctx(actor)))
      .events.map((e) => e.actionName);
  /** A project of `owner`; `repository: 'private'` keeps the code (and the features that need it) to members. */
  const create = async (name: string, visibility: projectsV1.Visibility, repository: 'enabled' | 'private' = 'enabled') => {
    const settings = repository === 'private'
      ? { repositoryAccessLevel: 'private', mergeRequestsAccessLevel: 'private', buildsAccessLevel: 'private', forkingAccessLevel: 'private' }
      : {};
    const req = projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId: 100, visibility, settings });
    return (await service.createProject(req, ctx(owner))).project!.id;
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    await upsertNamespace(pool, {
      id: 100, name: 'owner', path: 'owner', kind: 'user', full_path: 'owner', parent_id: null, owner_id: owner.id,
      owner_username: 'owner', owner_name: 'owner', owner_state: 'active', version: 1,
    });
  });
  afterAll(async () => {
    await pool?.end();
    await dropSchemas(schema);
  });

  it('writes one event for a bulk push however many of its refs arrive, and skips a project that is gone', async () => {
    const id = await create('bulk', projectsV1.Visibility.VISIBILITY_PRIVATE);
    for (const ref of ['a', 'b', 'c', 'd']) await consume(push(id, `refs/heads/${ref}`, { refsInPush: 4 }));
    await consume(push(id, 'refs/heads/main', { before: SHA, after: 'd'.repeat(40) }));
    const { events } = await service.listProjectEvents(projectsV1.ListProjectEventsRequest.fromPartial({ project: sel(id), sort: 'asc', page: 1, perPage: 20 }), ctx(owner));
    expect(events.map((e) => [e.actionName, e.pushData?.refCount, e.pushData?.ref])).toEqual([
      ['created', undefined, undefined], ['pushed new', 4, undefined], ['pushed to', undefined, 'main'],
    ]);
    expect(events[1]!.createdAt).toEqual(new Date('2026-05-01T10:00:00Z'));
    await expect(consume(push(987654, 'refs/heads/main'))).resolves.toBeUndefined();
    expect((await pool.query('SELECT count(*)::int AS n FROM project_events WHERE project_id = 987654')).rows[0].n).toBe(0);
  });

  it('shows pushes only to callers who may read the code; 404 to those who may not read the project', async () => {
    const open = await create('open', projectsV1.Visibility.VISIBILITY_PUBLIC);
    const closedRepo = await create('closed-repo', projectsV1.Visibility.VISIBILITY_PUBLIC, 'private');
    for (const id of [open, closedRepo]) await consume(push(id, 'refs/heads/main'));
    expect(await names(open, anonymous)).toEqual(['created', 'pushed new']);
    expect(await names(closedRepo, anonymous)).toEqual(['created']);
    expect(await names(closedRepo, stranger)).toEqual(['created']);
    await service.addProjectMember({ project: sel(closedRepo), userId: guest.id, username: '', accessLevel: 10, expiresAt: '' }, ctx(owner));
    expect(await names(closedRepo, guest)).toEqual(['created', 'pushed new', 'joined']);
    expect(await names(closedRepo, stranger, { action: 'pushed' })).toEqual([]);

    const hidden = await create('hidden', projectsV1.Visibility.VISIBILITY_PRIVATE);
    await expect(names(hidden, stranger)).rejects.toMatchObject({ kind: 'not_found', message: 'Project' });
    await expect(names(hidden, anonymous)).rejects.toMatchObject({ kind: 'not_found' });
  });
});
