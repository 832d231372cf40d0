import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { identityV1, projectsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';

const user = (id: number, username: string): Actor => ({ kind: 'user', id, username, admin: false, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const owner = user(1, 'owner');
const sharedDev = user(2, 'shareddev'); // Maintainer of the shared group "ops"
const maintainer = user(3, 'maint');
const stranger = user(4, 'stranger');
const USERS: Record<number, Actor> = { 1: owner, 2: sharedDev, 3: maintainer, 4: stranger };
const TEAM = 500; // the project's group namespace
const OPS = 600; // the group the project is shared with
const SECRET = 700; // a group hidden from everyone but the owner

describe('sharing projects with groups against PostgreSQL', () => {
  const schema = uniqueName('it_sharing');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  let projectId = 0;
  let otherId = 0;
  // identity as seen from projects: owner is Owner of team (and secret), shareddev Maintainer of ops.
  const levels: Record<number, Record<number, number>> = { 1: { [TEAM]: 50, [SECRET]: 50 }, 2: { [OPS]: 40 } };
  const groups: Record<number, { name: string; path: string }> = { [TEAM]: { name: 'Team', path: 'team' }, [OPS]: { name: 'Ops', path: 'ops' }, [SECRET]: { name: 'Secret', path: 'secret' } };
  const identity = {
    getNamespace: jest.fn(async (r: identityV1.GetNamespaceRequest) => {
      const id = r.selector?.$case === 'id' ? r.selector.value : TEAM;
      const g = groups[id]!;
      return { namespace: identityV1.Namespace.fromPartial({ id, name: g.name, path: g.path, kind: 'group', fullPath: g.path, version: 1 }), callerAccessLevel: 50 };
    }),
    getGroup: jest.fn(async (r: identityV1.GetGroupRequest, opts?: { actor?: Actor }) => {
      const id = r.group?.selector?.$case === 'id' ? r.group.selector.value : 0;
      if (!groups[id] || (id === SECRET && opts?.actor?.id !== owner.id)) throw new DomainError('not_found', 'Group');
      return { group: identityV1.Group.fromPartial({ id, name: groups[id]!.name, path: groups[id]!.path, fullPath: groups[id]!.path, visibility: 'public' }) };
    }),
    getUserGroupAccess: jest.fn(async (r: identityV1.GetUserGroupAccessRequest) => ({
      groups: Object.entries(levels[r.userId] ?? {})
        .filter(([g]) => r.groupIds.length === 0 || r.groupIds.includes(Number(g)))
        .map(([g, level]) => ({ groupId: Number(g), accessLevel: level })),
    })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const found = Object.values(USERS).find((u) => (r.selector?.$case === 'id' ? u.id === r.selector.value : u.username === r.selector?.value));
      if (!found) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: found.id, username: found.username, name: found.username.toUpperCase(), state: 'active', projectsLimit: 100000 }) };
    }),
    listGroupMembers: jest.fn(async (r: identityV1.ListGroupMembersRequest) => {
      const groupId = r.group?.selector?.$case === 'id' ? r.group.selector.value : 0;
      const members = Object.entries(levels)
        .filter(([id, l]) => l[groupId] && (r.userIds.length === 0 || r.userIds.includes(Number(id))))
        .map(([id, l]) => identityV1.GroupMember.fromPartial({
          user: { id: Number(id), username: USERS[Number(id)]!.username, name: 'n', state: 'active' }, accessLevel: l[groupId]!, groupId,
        }));
      return { members, total: members.length };
    }),
  };
  const sel = (id = projectId) => ({ selector: { $case: 'id' as const, value: id } });
  const outbox = async (type: string) =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE event_type = $1', [type])).rows[0]!.n;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity: identity as never, topic: 'test.projects', countLimit: 10000 });
    await upsertNamespace(pool, { id: TEAM, name: 'Team', path: 'team', kind: 'group', full_path: 'team', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 });
    projectId = (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name: 'app', namespaceId: TEAM, visibility: projectsV1.Visibility.VISIBILITY_PRIVATE }), ctx(owner))).project!.id;
    otherId = (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name: 'other', namespaceId: TEAM, visibility: projectsV1.Visibility.VISIBILITY_PRIVATE }), ctx(owner))).project!.id;
    await service.addProjectMember({ project: sel(), userId: maintainer.id, username: '', accessLevel: 40, expiresAt: '' }, ctx(owner));
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('refuses non-Maintainers, hidden groups, the own group, Owner links by Maintainers', async () => {
    expect((await rejection(service.shareProject({ project: sel(), groupId: OPS, groupAccess: 20, expiresAt: '' }, ctx(stranger)))).kind).toBe('not_found');
    const hidden = await rejection(service.shareProject({ project: sel(), groupId: SECRET, groupAccess: 20, expiresAt: '' }, ctx(maintainer)));
    expect([hidden.kind, hidden.message]).toEqual(['not_found', 'share-group']);
    const own = await rejection(service.shareProject({ project: sel(), groupId: TEAM, groupAccess: 20, expiresAt: '' }, ctx(owner)));
    expect([own.kind, own.message]).toEqual(['conflict', 'Project cannot be shared with the group it is in or one of its ancestors.']);
    expect((await rejection(service.shareProject({ project: sel(), groupId: OPS, groupAccess: 50, expiresAt: '' }, ctx(maintainer)))).kind).toBe('forbidden');
  });

  it('shares: members of the group get min(level, group_access), in reads, listings and shared_with_groups', async () => {
    expect((await rejection(service.getProject(sel(), ctx(sharedDev)))).kind).toBe('not_found');
    const { link } = await service.shareProject({ project: sel(), groupId: OPS, groupAccess: 20, expiresAt: '' }, ctx(maintainer));
    expect(link).toMatchObject({ projectId, groupId: OPS, groupAccess: 20, expiresAt: '' });
    expect(await outbox('gitlab.events.v1.ProjectShared')).toBe(1);
    const again = await rejection(service.shareProject({ project: sel(), groupId: OPS, groupAccess: 30, expiresAt: '' }, ctx(owner)));
    expect([again.kind, again.message]).toEqual(['conflict', 'Project already shared with this group']);

    const { project } = await service.getProject(sel(), ctx(sharedDev));
    expect(project).toMatchObject({ callerAccessLevel: 20, groupAccessLevel: 0, projectAccessLevel: 0 });
    expect(project!.sharedWithGroups).toEqual([{ groupId: OPS, groupName: 'Ops', groupFullPath: 'ops', groupAccessLevel: 20, expiresAt: '' }]);
    const listed = await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ membership: true }), ctx(sharedDev));
    expect(listed.projects.map((p) => [p.id, p.callerAccessLevel, p.sharedWithGroups.length])).toEqual([[projectId, 20, 1]]);
    expect((await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ minAccessLevel: 20 }), ctx(sharedDev))).projects.map((p) => p.id)).toEqual([projectId]);
    expect((await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ minAccessLevel: 30 }), ctx(sharedDev))).projects).toEqual([]);
    const sharedWithOps = await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ sharedWithGroupId: OPS }), ctx(owner));
    expect(sharedWithOps.projects.map((p) => p.id)).toEqual([projectId]);
  });

  it('a group member lists by visibility: by one every signed-in user reads (no membership in the SQL) and by private', async () => {
    // The group ids were bound whether or not the SQL read them; unread, PostgreSQL could not type them and the listing
    // failed ("could not determine data type of parameter $2").
    for (const visibility of [projectsV1.Visibility.VISIBILITY_INTERNAL, projectsV1.Visibility.VISIBILITY_PUBLIC]) {
      const listed = await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ visibility }), ctx(sharedDev));
      expect([listed.projects, Number(listed.total)]).toEqual([[], 0]);
    }
    const own = await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ visibility: projectsV1.Visibility.VISIBILITY_PRIVATE }), ctx(sharedDev));
    expect([own.projects.map((p) => p.id), Number(own.total)]).toEqual([[projectId], 1]);
  });

  it('lists users and groups of the project', async () => {
    const { users } = await service.listProjectUsers(projectsV1.ListProjectUsersRequest.fromPartial({ project: sel() }), ctx(sharedDev));
    expect(users.map((u) => u.username)).toEqual(['owner', 'shareddev', 'maint']);
    const skipped = await service.listProjectUsers(projectsV1.ListProjectUsersRequest.fromPartial({ project: sel(), skipUsers: [1], search: 'a' }), ctx(sharedDev));
    expect(skipped.users.map((u) => u.username)).toEqual(['shareddev', 'maint']);
    const ancestors = await service.listProjectGroups(projectsV1.ListProjectGroupsRequest.fromPartial({ project: sel() }), ctx(owner));
    expect(ancestors.groups.map((g) => [g.id, g.fullName])).toEqual([[TEAM, 'Team']]);
    const withShared = await service.listProjectGroups(projectsV1.ListProjectGroupsRequest.fromPartial({ project: sel(), withShared: true }), ctx(owner));
    expect(withShared.groups.map((g) => g.id)).toEqual([TEAM, OPS]);
    const minLevel = await service.listProjectGroups(projectsV1.ListProjectGroupsRequest.fromPartial({ project: sel(), withShared: true, sharedMinAccessLevel: 30 }), ctx(owner));
    expect(minLevel.groups.map((g) => g.id)).toEqual([TEAM]);
  });

  it('imports members capped at the importer level, leaving existing members alone', async () => {
    const denied = await rejection(service.importProjectMembers({ project: sel(otherId), source: sel() }, ctx(maintainer)));
    expect(denied.kind).toBe('not_found'); // maint cannot read "other"
    const res = await service.importProjectMembers({ project: sel(otherId), source: sel() }, ctx(owner));
    // A group project has no creator membership (access comes from the group): the source's one member is imported.
    expect(res).toEqual({ status: 'success', errors: {}, totalMembersCount: 1, message: '', reason: '' });
    const { members } = await service.listProjectMembers(projectsV1.ListProjectMembersRequest.fromPartial({ project: sel(otherId) }), ctx(owner));
    expect(members.map((m) => [m.user!.username, m.accessLevel])).toEqual([['maint', 40]]);
    expect(await outbox('gitlab.events.v1.ProjectMembershipChanged')).toBe(2);
  });

  it('an expired link gives nothing; unsharing ends access', async () => {
    await pool.query('UPDATE project_group_links SET expires_at = current_date');
    expect((await rejection(service.getProject(sel(), ctx(sharedDev)))).kind).toBe('not_found');
    await pool.query("UPDATE project_group_links SET expires_at = current_date + 1");
    expect((await service.getProject(sel(), ctx(sharedDev))).project!.callerAccessLevel).toBe(20);
    await service.unshareProject({ project: sel(), groupId: OPS }, ctx(maintainer));
    expect(await outbox('gitlab.events.v1.ProjectUnshared')).toBe(1);
    expect((await rejection(service.getProject(sel(), ctx(sharedDev)))).kind).toBe('not_found');
    const gone = await rejection(service.unshareProject({ project: sel(), groupId: OPS }, ctx(maintainer)));
    expect([gone.kind, gone.message]).toEqual(['not_found', 'Group Link']);
  });
});
