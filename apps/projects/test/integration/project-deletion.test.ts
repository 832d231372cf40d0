import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { identityV1, projectsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { purgeDueProjects } from '../../src/app/delete-project';
import { onNamespaceDeleted } from '../../src/events/namespace-consumer';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';

const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const alice: Actor = { kind: 'user', id: 1, username: 'alice', admin: false, scopes: ['api'] };
const bob: Actor = { kind: 'user', id: 2, username: 'bob', admin: false, scopes: ['api'] };

describe('project deletion against PostgreSQL', () => {
  const schema = uniqueName('it_deletion');
  let pool: Pool;
  const identity = {
    getNamespace: jest.fn(),
    getUserGroupAccess: jest.fn(async () => ({ groups: [] })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      // The creator's projects_limit (personal project limit): any user id has the default.
      if (r.selector?.$case !== 'id') throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: r.selector.value, username: `user${r.selector.value}`, state: 'active', projectsLimit: 100000 }) };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
    getApplicationSettings: jest.fn(async () => ({ settings: identityV1.ApplicationSettings.fromPartial({ deletionAdjournedPeriod: 7 }) })),
  };
  const service = (_?: number) => projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
  const create = async (name: string) =>
    (await service().createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId: 10 }), ctx(alice))).project!;
  const byId = (id: number) => ({ project: { selector: { $case: 'id' as const, value: id } } });
  const events = async (type: string) => (await pool.query(`SELECT count(*)::int AS n FROM outbox WHERE event_type = 'gitlab.events.v1.${type}'`)).rows[0].n as number;
  const exists = async (id: number) => (await pool.query('SELECT 1 FROM projects WHERE id = $1', [id])).rows.length === 1;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    await upsertNamespace(pool, { id: 10, name: 'alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, owner_id: 1, owner_username: 'alice', owner_name: 'Alice', owner_state: 'active', version: 1 });
    identity.getNamespace.mockImplementation(async () => ({ namespace: identityV1.Namespace.fromPartial({ id: 10, kind: 'user', fullPath: 'alice', owner: { id: 1 } }), callerAccessLevel: 50 }));
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('marks (renamed, archived, today), refuses twice, restores, deletes at once only with permanently_remove and its path', async () => {
    const p = await create('now');
    expect((await rejection(service().deleteProject({ ...byId(p.id), permanentlyRemove: false, fullPath: '' }, ctx(bob)))).kind).toBe('not_found'); // private: hidden
    const early = await rejection(service().deleteProject({ ...byId(p.id), permanentlyRemove: true, fullPath: 'alice/now' }, ctx(alice)));
    expect([early.kind, early.message]).toEqual(['rejected', 'Project must be marked for deletion first.']);
    expect(await service().deleteProject({ ...byId(p.id), permanentlyRemove: false, fullPath: '' }, ctx(alice))).toEqual({ marked: true });
    const renamed = `now-deletion_scheduled-${p.id}`;
    expect((await service().getProject({ selector: { $case: 'id', value: p.id } }, ctx(alice))).project)
      .toMatchObject({ archived: true, name: renamed, path: renamed, markedForDeletionOn: new Date().toISOString().slice(0, 10) });
    const twice = await rejection(service().deleteProject({ ...byId(p.id), permanentlyRemove: false, fullPath: '' }, ctx(alice)));
    expect([twice.kind, twice.message]).toEqual(['rejected', 'Project has been already marked for deletion']);
    expect(await service().deleteProject({ ...byId(p.id), permanentlyRemove: true, fullPath: `alice/${renamed}` }, ctx(alice))).toEqual({ marked: false });
    expect(await exists(p.id)).toBe(false);
    expect((await pool.query('SELECT count(*)::int AS n FROM project_members WHERE project_id = $1', [p.id])).rows[0].n).toBe(0);
    expect(await events('ProjectDeleted')).toBe(1);
  });

  it('restores under the old name, and purges once deletion_adjourned_period days have passed', async () => {
    const p = await create('later');
    await service().deleteProject({ ...byId(p.id), permanentlyRemove: false, fullPath: '' }, ctx(alice));
    const restored = (await service().restoreProject(byId(p.id), ctx(alice))).project!;
    expect(restored).toMatchObject({ archived: false, markedForDeletionOn: '', name: 'later', path: 'later' });
    await service().deleteProject({ ...byId(p.id), permanentlyRemove: false, fullPath: '' }, ctx(alice));
    await pool.query('UPDATE projects SET marked_for_deletion_on = current_date - 6 WHERE id = $1', [p.id]);
    expect(await purgeDueProjects({ pool, identity, topic: 'test.projects', countLimit: 10000 })).toBe(0); // not due yet
    await pool.query('UPDATE projects SET marked_for_deletion_on = current_date - 7 WHERE id = $1', [p.id]);
    expect(await purgeDueProjects({ pool, identity, topic: 'test.projects', countLimit: 10000 })).toBe(1);
    expect(await exists(p.id)).toBe(false);
    expect(await events('ProjectUpdated')).toBe(4); // marked, marked, restored, marked
  });

  it('deletes the projects of a namespace identity deleted, each with ProjectDeleted, then the replica row', async () => {
    const before = await events('ProjectDeleted');
    const a = await create('ns-a');
    const b = await create('ns-b');
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await onNamespaceDeleted(client, { id: 10, kind: 'user', fullPath: 'alice' }, 'test.projects');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect([await exists(a.id), await exists(b.id)]).toEqual([false, false]);
    // a share of another namespace's project with a deleted group goes too
    await upsertNamespace(pool, { id: 11, name: 'other', path: 'other', kind: 'user', full_path: 'other', parent_id: null, owner_id: 9, owner_username: 'other', owner_name: 'Other', owner_state: 'active', version: 1 });
    const { rows: [kept] } = await pool.query<{ id: number }>(
      `INSERT INTO projects (namespace_id, name, path, visibility, creator_id) VALUES (11, 'kept', 'kept', 'private', 9) RETURNING id`,
    );
    await pool.query('INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, 500, 30)', [kept!.id]);
    const tx = await pool.connect();
    try {
      await tx.query('BEGIN');
      await onNamespaceDeleted(tx, { id: 500, kind: 'group', fullPath: 'gone-group' }, 'test.projects');
      await tx.query('COMMIT');
    } finally {
      tx.release();
    }
    expect((await pool.query('SELECT count(*)::int AS n FROM project_group_links WHERE group_id = 500')).rows[0].n).toBe(0);
    expect(await exists(kept!.id)).toBe(true);
    expect(await events('ProjectDeleted')).toBe(before + 2);
    expect((await pool.query('SELECT count(*)::int AS n FROM namespaces WHERE id = 10')).rows[0].n).toBe(0);
  });
});
