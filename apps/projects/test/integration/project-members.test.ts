import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { identityV1, projectsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';
import { upsertUsers } from '../../src/store/users-replica-store';
import { withUsers } from '../../src/app/project-members';
import type { ProjectsDeps } from '../../src/app/deps';

const user = (id: number, username: string): Actor => ({ kind: 'user', id, username, admin: false, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const owner = user(1, 'owner');
const groupDev = user(2, 'groupdev');
const newcomer = user(3, 'newcomer');
const stranger = user(4, 'stranger');
const USERS: Record<number, Actor> = { 1: owner, 2: groupDev, 3: newcomer, 4: stranger };
const GROUP_ID = 500;

describe('project members and group access against PostgreSQL', () => {
  const schema = uniqueName('it_members');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  let projectId = 0;
  // identity as seen from projects: a private group "team" (id 500) where owner is Owner and groupdev is Developer.
  const groupLevels: Record<number, number> = { 1: 50, 2: 30 };
  const identity = {
    getNamespace: jest.fn(async () => ({
      namespace: identityV1.Namespace.fromPartial({ id: GROUP_ID, name: 'Team', path: 'team', kind: 'group', fullPath: 'team', version: 1 }),
      callerAccessLevel: 50,
    })),
    getUserGroupAccess: jest.fn(async (r: identityV1.GetUserGroupAccessRequest) => ({
      groups: groupLevels[r.userId] ? [{ groupId: GROUP_ID, accessLevel: groupLevels[r.userId]! }] : [],
    })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const found = Object.values(USERS).find((u) => (r.selector?.$case === 'id' ? u.id === r.selector.value : u.username === r.selector?.value));
      if (!found) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: found.id, username: found.username, name: found.username.toUpperCase(), state: 'active', projectsLimit: 100000 }) };
    }),
    listGroupMembers: jest.fn(async (r: identityV1.ListGroupMembersRequest) => {
      const members = Object.entries(groupLevels)
        .filter(([id]) => r.userIds.length === 0 || r.userIds.includes(Number(id)))
        .map(([id, level]) => identityV1.GroupMember.fromPartial({
          user: { id: Number(id), username: USERS[Number(id)]!.username, name: 'n', state: 'active' }, accessLevel: level, groupId: GROUP_ID,
        }));
      return { members, total: members.length };
    }),
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    await upsertNamespace(pool, { id: GROUP_ID, name: 'Team', path: 'team', kind: 'group', full_path: 'team', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 });
    const { project } = await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name: 'app', namespaceId: GROUP_ID, visibility: projectsV1.Visibility.VISIBILITY_PRIVATE }), ctx(owner));
    projectId = project!.id;
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });
  const sel = () => ({ selector: { $case: 'id' as const, value: projectId } });

  it('lets group members read a private group project with their group level; strangers get 404', async () => {
    const { project } = await service.getProject({ selector: { $case: 'id', value: projectId } }, ctx(groupDev));
    expect(project).toMatchObject({ callerAccessLevel: 30, groupAccessLevel: 30, projectAccessLevel: 0 });
    const hidden = await rejection(service.getProject({ selector: { $case: 'id', value: projectId } }, ctx(stranger)));
    expect([hidden.kind, hidden.message]).toEqual(['not_found', 'Project']);
    const listed = await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ membership: true }), ctx(groupDev));
    expect(listed.projects.map((p) => [p.id, p.callerAccessLevel])).toEqual([[projectId, 30]]);
    const dev = await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({ minAccessLevel: 40 }), ctx(groupDev));
    expect(dev.projects).toEqual([]);
    expect((await service.listProjects(projectsV1.ListProjectsRequest.fromPartial({}), ctx(stranger))).projects).toEqual([]);
  });

  it('adds, lists, changes and removes members with GitLab rules; events go to the outbox', async () => {
    const denied = await rejection(service.addProjectMember({ project: sel(), userId: newcomer.id, username: '', accessLevel: 20, expiresAt: '' }, ctx(groupDev)));
    expect(denied.kind).toBe('forbidden'); // Developer through the group: not a Maintainer
    const { member } = await service.addProjectMember({ project: sel(), userId: 0, username: 'newcomer', accessLevel: 20, expiresAt: '2999-01-01' }, ctx(owner));
    expect(member).toMatchObject({ accessLevel: 20, expiresAt: '2999-01-01', sourceKind: 'project', createdById: owner.id, user: { username: 'newcomer', name: 'NEWCOMER' } });
    const dup = await rejection(service.addProjectMember({ project: sel(), userId: newcomer.id, username: '', accessLevel: 20, expiresAt: '' }, ctx(owner)));
    expect([dup.kind, dup.message]).toEqual(['conflict', 'Member already exists']);
    const below = await rejection(service.addProjectMember({ project: sel(), userId: groupDev.id, username: '', accessLevel: 20, expiresAt: '' }, ctx(owner)));
    expect(below.fields).toEqual({ access_level: ['should be greater than or equal to Developer inherited membership from group Team'] });
    const ownerLevel = await rejection(service.addProjectMember({ project: sel(), userId: stranger.id, username: '', accessLevel: 50, expiresAt: '' }, ctx(owner)));
    expect(ownerLevel.fields).toEqual({ access_level: ['is not included in the list'] });
    const unknown = await rejection(service.addProjectMember({ project: sel(), userId: 99, username: '', accessLevel: 20, expiresAt: '' }, ctx(owner)));
    expect([unknown.kind, unknown.message]).toEqual(['not_found', 'User']);

    const direct = await service.listProjectMembers({ project: sel(), inherited: false, query: '', userIds: [], page: 1, perPage: 20 }, ctx(newcomer));
    // The creator of a group project is not made its member: their Owner level comes from the group.
    expect(direct.members.map((m) => [m.user!.username, m.accessLevel, m.sourceKind])).toEqual([['newcomer', 20, 'project']]);
    const all = await service.listProjectMembers({ project: sel(), inherited: true, query: '', userIds: [], page: 1, perPage: 20 }, ctx(newcomer));
    expect(all.members.map((m) => [m.user!.username, m.accessLevel, m.sourceKind])).toEqual([
      ['owner', 50, 'group'], ['groupdev', 30, 'group'], ['newcomer', 20, 'project'],
    ]);
    expect(all.total).toBe(3);

    const { member: changed } = await service.updateProjectMember({ project: sel(), userId: newcomer.id, accessLevel: 40, expiresAt: 'none' }, ctx(owner));
    expect(changed).toMatchObject({ accessLevel: 40, expiresAt: '' });
    await service.removeProjectMember({ project: sel(), userId: newcomer.id }, ctx(newcomer)); // leaving
    const gone = await rejection(service.getProjectMember({ project: sel(), userId: newcomer.id, inherited: false }, ctx(owner)));
    expect([gone.kind, gone.message]).toEqual(['not_found', 'record']);
    const events = await pool.query("SELECT count(*)::int AS n FROM outbox WHERE event_type = 'gitlab.events.v1.ProjectMembershipChanged'");
    expect(events.rows[0].n).toBe(3);
  });

  it('keeps a member whose user reaches the read model between reading the rows and filling in their users', async () => {
    // The race seen in CI: the member rows were read before the user-created event stored the user, which arrives
    // before the missing users are looked up; the member must still be listed (from the read model, identity not asked).
    await upsertUsers(pool, [{ id: 77, username: 'late', name: 'Late', state: 'active', avatar_url: '' }]);
    identity.getUser.mockClear();
    const views = await withUsers({ pool, identity } as unknown as ProjectsDeps, [
      { project_id: projectId, user_id: 77, access_level: 30, expires_at: null, created_by: owner.id, created_at: new Date(), user: null, creator: null },
    ]);
    expect(views.map((v) => [v.user.id, v.user.username, v.accessLevel])).toEqual([[77, 'late', 30]]);
    expect(identity.getUser).not.toHaveBeenCalled();
  });

  it('hides the members of a project the caller cannot read', async () => {
    const err = await rejection(service.listProjectMembers({ project: sel(), inherited: false, query: '', userIds: [], page: 1, perPage: 20 }, ctx(stranger)));
    expect([err.kind, err.message]).toEqual(['not_found', 'Project']);
  });
});
