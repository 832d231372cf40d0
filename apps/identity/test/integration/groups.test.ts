import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { identityV1 } from '@glp/proto';
import { systemActor, createLogger, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { identityService } from '../../src/grpc/identity-service';
import { noAuthCache } from '../../src/events/auth-cache-invalidator';
import { noGroupAccessCache } from '../../src/events/group-access-invalidator';
import { migrateIdentity } from '../../src/migrations';

const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const admin = systemActor('test');
const ANON: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };

describe('identity groups and members against PostgreSQL', () => {
  const schema = uniqueName('it_groups');
  let pool: Pool;
  let service: ReturnType<typeof identityService>;
  const users: Record<string, Actor> = {};
  const byId = (id: number) => ({ group: { selector: { $case: 'id' as const, value: id } } });

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateIdentity(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = identityService({ pool, topic: 'test.identity', logger: createLogger('groups-test', 'silent'), countLimit: 10000, authCache: noAuthCache, groupAccess: noGroupAccessCache });
    for (const name of ['owner', 'dev', 'stranger', 'outsider']) {
      const { user } = await service.createUser(
        identityV1.CreateUserRequest.fromPartial({ username: name, name, email: `${name}@example.com`, password: 'secret-password', external: name === 'outsider' }),
        ctx(admin),
      );
      users[name] = { kind: 'user', id: user!.id, username: name, admin: false, scopes: ['api'] };
    }
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('creates nested groups with full paths; the creator is Owner; events go to the outbox in the same transaction', async () => {
    const before = (await pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n as number;
    const { group: parent } = await service.createGroup({ name: 'Parent', path: 'parent', description: 'd', visibility: 'internal', parentId: 0 }, ctx(users.owner!));
    expect(parent).toMatchObject({ fullPath: 'parent', fullName: 'Parent', visibility: 'internal', parentId: 0, callerAccessLevel: 50, requestAccessEnabled: true });
    const { group: child } = await service.createGroup({ name: 'Child', path: 'child', description: '', visibility: '', parentId: parent!.id }, ctx(users.owner!));
    expect(child).toMatchObject({ fullPath: 'parent/child', fullName: 'Parent / Child', visibility: 'private', parentId: parent!.id });
    const after = (await pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n as number;
    expect(after - before).toBe(4); // NamespaceChanged + GroupMembershipChanged per group
    const byPath = await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'PARENT/child' } } }, ctx(users.owner!));
    expect(byPath.group!.id).toBe(child!.id);
  });

  it('refuses bad and taken paths, a subgroup more public than its parent, and strangers creating subgroups', async () => {
    const taken = await rejection(service.createGroup({ name: 'x', path: 'parent', description: '', visibility: '', parentId: 0 }, ctx(users.dev!)));
    expect(taken.kind).toBe('invalid');
    expect(taken.fields).toEqual({ path: ['has already been taken'] });
    const bad = await rejection(service.createGroup({ name: 'x', path: '-bad.', description: '', visibility: '', parentId: 0 }, ctx(users.dev!)));
    expect(Object.keys(bad.fields ?? {})).toEqual(['path']);
    const parent = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent' } } }, ctx(admin))).group!;
    const tooPublic = await rejection(service.createGroup({ name: 'p', path: 'p', description: '', visibility: 'public', parentId: parent.id }, ctx(users.owner!)));
    expect(tooPublic.fields).toEqual({ visibility_level: ['public is not allowed since the parent group has a internal visibility.'] });
    const stranger = await rejection(service.createGroup({ name: 's', path: 's', description: '', visibility: '', parentId: parent.id }, ctx(users.stranger!)));
    expect(stranger.kind).toBe('forbidden');
    const external = await rejection(service.createGroup({ name: 'e', path: 'e', description: '', visibility: '', parentId: 0 }, ctx(users.outsider!)));
    expect(external.kind).toBe('forbidden');
    const rows = (await pool.query("SELECT count(*)::int AS n FROM namespaces WHERE kind = 'group'")).rows[0].n;
    expect(rows).toBe(2); // nothing half-written
  });

  it('hides private groups from strangers and anonymous callers, internal ones from anonymous and external users', async () => {
    const child = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent/child' } } }, ctx(admin))).group!;
    const parent = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent' } } }, ctx(admin))).group!;
    expect((await rejection(service.getGroup(byId(child.id), ctx(users.stranger!)))).message).toBe('Group');
    expect((await rejection(service.getGroup(byId(child.id), ctx(ANON)))).kind).toBe('not_found');
    expect((await service.getGroup(byId(parent.id), ctx(users.stranger!))).group!.id).toBe(parent.id);
    expect((await rejection(service.getGroup(byId(parent.id), ctx(ANON)))).kind).toBe('not_found');
    expect((await rejection(service.getGroup(byId(parent.id), ctx(users.outsider!)))).kind).toBe('not_found');
  });

  it('adds members with GitLab rules: inherited access, duplicates, owners only, no past expiry', async () => {
    const parent = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent' } } }, ctx(admin))).group!;
    const child = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent/child' } } }, ctx(admin))).group!;
    const added = await service.addGroupMember({ ...byId(parent.id), userId: users.dev!.id, username: '', accessLevel: 30, expiresAt: '' }, ctx(users.owner!));
    expect(added.member).toMatchObject({ accessLevel: 30, groupId: parent.id, expiresAt: '', createdById: users.owner!.id });
    expect(added.member!.user).toMatchObject({ username: 'dev' });
    const dup = await rejection(service.addGroupMember({ ...byId(parent.id), userId: users.dev!.id, username: '', accessLevel: 30, expiresAt: '' }, ctx(users.owner!)));
    expect([dup.kind, dup.message]).toEqual(['conflict', 'Member already exists']);
    const lower = await rejection(service.addGroupMember({ ...byId(child.id), userId: users.dev!.id, username: '', accessLevel: 20, expiresAt: '' }, ctx(users.owner!)));
    expect(lower.fields).toEqual({ access_level: ['should be greater than or equal to Developer inherited membership from group Parent'] });
    const past = await rejection(service.addGroupMember({ ...byId(child.id), userId: users.stranger!.id, username: '', accessLevel: 20, expiresAt: '2001-01-01' }, ctx(users.owner!)));
    expect(past.fields).toEqual({ expires_at: ['cannot be a date in the past'] });
    const notOwner = await rejection(service.addGroupMember({ ...byId(parent.id), userId: users.stranger!.id, username: '', accessLevel: 10, expiresAt: '' }, ctx(users.dev!)));
    expect(notOwner.kind).toBe('forbidden');
    const unknown = await rejection(service.addGroupMember({ ...byId(parent.id), userId: 0, username: 'nobody', accessLevel: 10, expiresAt: '' }, ctx(users.owner!)));
    expect([unknown.kind, unknown.message]).toEqual(['not_found', 'User']);
    // dev now reads the private child through the parent, with Developer access
    const seen = await service.getGroup(byId(child.id), ctx(users.dev!));
    expect(seen.group!.callerAccessLevel).toBe(30);
    const all = await service.listGroupMembers({ ...byId(child.id), inherited: true, query: '', userIds: [], page: 1, perPage: 20 }, ctx(users.dev!));
    expect(all.members.map((m) => [m.user!.username, m.accessLevel, m.groupId])).toEqual([
      ['owner', 50, child.id], ['dev', 30, parent.id],
    ]);
    const direct = await service.listGroupMembers({ ...byId(child.id), inherited: false, query: '', userIds: [], page: 1, perPage: 20 }, ctx(users.dev!));
    expect(direct.members.map((m) => m.user!.username)).toEqual(['owner']);
  });

  it('updates a member as GitLab: 404 for a non-member whoever asks, then 403 for a caller who is not an Owner', async () => {
    const parent = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent' } } }, ctx(admin))).group!;
    // lib/api/members.rb: `source_members(source).find_by!(user_id:)` before `authorize_update_source_member!`.
    for (const caller of ['dev', 'stranger', 'owner']) {
      const missing = await rejection(service.updateGroupMember({ ...byId(parent.id), userId: users.outsider!.id, accessLevel: 30 }, ctx(users[caller]!)));
      expect([caller, missing.kind, missing.message]).toEqual([caller, 'not_found', 'record']);
    }
    const notOwner = await rejection(service.updateGroupMember({ ...byId(parent.id), userId: users.owner!.id, accessLevel: 40 }, ctx(users.dev!)));
    expect(notOwner.kind).toBe('forbidden');
    // Nothing changed: the owner is still Owner, the outsider still not a member.
    const members = await service.listGroupMembers({ ...byId(parent.id), inherited: false, query: '', userIds: [], page: 1, perPage: 20 }, ctx(users.owner!));
    expect(members.members.map((m) => [m.user!.username, m.accessLevel])).toEqual([['owner', 50], ['dev', 30]]);
  });

  it('keeps an Owner on a top-level group; a member may leave; removal ends access', async () => {
    const parent = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent' } } }, ctx(admin))).group!;
    const demote = await rejection(service.updateGroupMember({ ...byId(parent.id), userId: users.owner!.id, accessLevel: 40 }, ctx(users.owner!)));
    expect(demote.kind).toBe('forbidden');
    const updated = await service.updateGroupMember({ ...byId(parent.id), userId: users.dev!.id, accessLevel: 40, expiresAt: '2999-12-31' }, ctx(users.owner!));
    expect(updated.member).toMatchObject({ accessLevel: 40, expiresAt: '2999-12-31' });
    await service.removeGroupMember({ ...byId(parent.id), userId: users.dev!.id }, ctx(users.dev!));
    const child = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent/child' } } }, ctx(admin))).group!;
    expect((await rejection(service.getGroup(byId(child.id), ctx(users.dev!)))).kind).toBe('not_found');
    const gone = await rejection(service.removeGroupMember({ ...byId(parent.id), userId: users.dev!.id }, ctx(users.owner!)));
    expect([gone.kind, gone.message]).toEqual(['not_found', 'record']);
  });

  it('renames a parent and moves every descendant full path; lists and namespaces answer for the caller', async () => {
    const parent = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'parent' } } }, ctx(admin))).group!;
    const { group } = await service.updateGroup({ ...byId(parent.id), path: 'renamed', name: 'Renamed' }, ctx(users.owner!));
    expect(group).toMatchObject({ fullPath: 'renamed', fullName: 'Renamed' });
    const child = await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'renamed/child' } } }, ctx(users.owner!));
    expect(child.group).toMatchObject({ fullName: 'Renamed / Child' });
    const widening = await rejection(service.updateGroup({ ...byId(child.group!.id), visibility: 'public' }, ctx(users.owner!)));
    expect(widening.fields).toEqual({ visibility_level: ['public is not allowed since the parent group has a internal visibility.'] });
    const mine = await service.listGroups({ search: '', owned: false, minAccessLevel: 0, topLevelOnly: false, skipGroups: [], orderBy: '', sort: '', page: 1, perPage: 20, parentId: 0, visibility: '' }, ctx(users.owner!));
    expect(mine.groups.map((g) => g.fullPath)).toEqual(['renamed/child', 'renamed']);
    expect(mine.total).toBe(2);
    const strangers = await service.listGroups({ search: '', owned: false, minAccessLevel: 0, topLevelOnly: false, skipGroups: [], orderBy: '', sort: '', page: 1, perPage: 20, parentId: 0, visibility: '', allAvailable: true }, ctx(users.stranger!));
    expect(strangers.groups.map((g) => g.fullPath)).toEqual(['renamed']);
    const everything = await service.listGroups({ search: '', owned: false, minAccessLevel: 0, topLevelOnly: false, skipGroups: [], orderBy: 'path', sort: '', page: 1, perPage: 20, parentId: 0, visibility: '' }, ctx(admin));
    expect([everything.groups.map((g) => g.fullPath), everything.total]).toEqual([['renamed/child', 'renamed'], 2]);
    const allNamespaces = await service.listNamespaces({ search: '', ownedOnly: false, topLevelOnly: true, page: 1, perPage: 20 }, ctx(admin));
    expect(allNamespaces.namespaces.map((n) => n.fullPath)).toEqual(['owner', 'dev', 'stranger', 'outsider', 'renamed']);
    const anon = await service.listGroups({ search: '', owned: false, minAccessLevel: 0, topLevelOnly: false, skipGroups: [], orderBy: '', sort: '', page: 1, perPage: 20, parentId: 0, visibility: '' }, ctx(ANON));
    expect(anon.groups).toEqual([]);
    const ns = await service.listNamespaces({ search: '', ownedOnly: false, topLevelOnly: false, page: 1, perPage: 20 }, ctx(users.owner!));
    expect(ns.namespaces.map((n) => [n.fullPath, n.kind])).toEqual([['owner', 'user'], ['renamed', 'group'], ['renamed/child', 'group']]);
    const other = await rejection(service.getNamespace({ selector: { $case: 'fullPath', value: 'renamed' } }, ctx(users.stranger!)));
    expect([other.kind, other.message]).toEqual(['not_found', 'Namespace']);
    const access = await service.getNamespace({ selector: { $case: 'fullPath', value: 'renamed/child' } }, ctx(users.owner!));
    expect(access.callerAccessLevel).toBe(50);
  });

  it('marks a group for deletion (renamed with its subgroups), then removes it with its subgroups and memberships, owners only', async () => {
    const parent = (await service.getGroup({ group: { selector: { $case: 'fullPath', value: 'renamed' } } }, ctx(admin))).group!;
    const mark = { ...byId(parent.id), permanentlyRemove: false, fullPath: '' };
    const changedEvents = async () =>
      (await pool.query("SELECT count(*)::int AS n FROM outbox WHERE event_type = 'gitlab.events.v1.NamespaceChanged'")).rows[0].n as number;
    expect((await rejection(service.deleteGroup(mark, ctx(users.stranger!)))).kind).toBe('forbidden');
    const before = await changedEvents();
    expect(await service.deleteGroup(mark, ctx(users.owner!))).toEqual({ marked: true });
    expect(await changedEvents()).toBe(before + 2); // the group and its subgroup, renamed, in the marking transaction
    const renamed = `renamed-deletion_scheduled-${parent.id}`;
    const marked = (await service.getGroup(byId(parent.id), ctx(users.owner!))).group!;
    expect([marked.fullPath, marked.markedForDeletionOn]).toEqual([renamed, new Date().toISOString().slice(0, 10)]);

    const remove = { ...byId(parent.id), permanentlyRemove: true, fullPath: renamed };
    expect(await service.deleteGroup(remove, ctx(users.owner!))).toEqual({ marked: false });
    expect((await pool.query("SELECT count(*)::int AS n FROM namespaces WHERE kind = 'group'")).rows[0].n).toBe(0);
    expect((await pool.query('SELECT count(*)::int AS n FROM group_members')).rows[0].n).toBe(0);
    const deleted = await pool.query("SELECT count(*)::int AS n FROM outbox WHERE event_type = 'gitlab.events.v1.NamespaceDeleted'");
    expect(deleted.rows[0].n).toBe(2);
  });
});
