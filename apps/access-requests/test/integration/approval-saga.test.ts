import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { accessRequestsV1, identityV1, projectsV1 } from '@glp/proto';
import { createLogger, DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { completeApprovals } from '../../src/app/complete-approvals';
import { accessRequestsService } from '../../src/grpc/access-requests-service';
import { migrateAccessRequests } from '../../src/migrations';

const user = (id: number, username: string): Actor => ({ kind: 'user', id, username, admin: false, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const owner = user(1, 'owner');
const requester = user(2, 'requester');
const other = user(3, 'other');
const GROUP = { kind: accessRequestsV1.SourceKind.SOURCE_KIND_GROUP, selector: { $case: 'id' as const, value: 100 } };
const PROJECT = { kind: accessRequestsV1.SourceKind.SOURCE_KIND_PROJECT, selector: { $case: 'id' as const, value: 200 } };
const logger = createLogger('saga-test', 'silent');

describe('access requests: approval saga against PostgreSQL', () => {
  const schema = uniqueName('it_access_requests');
  let pool: Pool;
  let service: ReturnType<typeof accessRequestsService>;
  let deps: Parameters<typeof accessRequestsService>[0];
  // The owning services, faked: group 100 (owner is Owner), project 200 (owner is Maintainer); who is a member of what.
  const members = new Map<string, number>([['group:1', 50], ['project:1', 40]]);
  let outage = 0; // how many addGroupMember calls fail with UNAVAILABLE
  const memberOf = (kind: string, userId: number, level: number) =>
    ({ user: identityV1.User.fromPartial({ id: userId, username: `u${userId}`, name: `U${userId}`, state: 'active' }), accessLevel: level, expiresAt: '' });
  const identity = {
    getGroup: jest.fn(async (_r: unknown, o?: { actor?: Actor }) => ({
      group: identityV1.Group.fromPartial({ id: 100, requestAccessEnabled: true, callerAccessLevel: members.get(`group:${o?.actor?.id}`) ?? 0 }),
    })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => ({
      user: identityV1.User.fromPartial({ id: r.selector?.$case === 'id' ? r.selector.value : 0, username: 'requester', name: 'Requester', state: 'active' }),
    })),
    addGroupMember: jest.fn(async (r: identityV1.AddGroupMemberRequest, o?: { actor?: Actor }) => {
      if (outage > 0) {
        outage--;
        throw new DomainError('unavailable', 'identity is down');
      }
      // As identity does: only an administrator or an Owner of the group adds members.
      if (!o?.actor?.admin && (members.get(`group:${o?.actor?.id}`) ?? 0) < 50) throw new DomainError('forbidden', '403 Forbidden');
      if (members.has(`group:${r.userId}`)) throw new DomainError('conflict', 'Member already exists');
      members.set(`group:${r.userId}`, r.accessLevel);
      return { member: identityV1.GroupMember.fromPartial(memberOf('group', r.userId, r.accessLevel)) };
    }),
    getGroupMember: jest.fn(async (r: identityV1.GetGroupMemberRequest) => ({ member: identityV1.GroupMember.fromPartial(memberOf('group', r.userId, members.get(`group:${r.userId}`)!)) })),
  };
  const projects = {
    getProject: jest.fn(async (_r: unknown, o?: { actor?: Actor }) => ({
      project: projectsV1.Project.fromPartial({ id: 200, callerAccessLevel: members.get(`project:${o?.actor?.id}`) ?? 0, settings: { requestAccessEnabled: true } }),
    })),
    addProjectMember: jest.fn(async (r: projectsV1.AddProjectMemberRequest) => {
      if (r.userId === 3) throw new DomainError('invalid', '', { access_level: ['should be greater than or equal to Maintainer inherited membership from group g'] });
      members.set(`project:${r.userId}`, r.accessLevel);
      return { member: projectsV1.ProjectMember.fromPartial({ user: { id: r.userId, username: 'requester', name: 'Requester', state: 'active' }, accessLevel: r.accessLevel }) };
    }),
    getProjectMember: jest.fn(),
  };
  const state = async () => (await pool.query('SELECT source_kind, user_id, state, approved_level FROM access_requests ORDER BY source_kind, user_id')).rows;
  const events = async (type: string) => (await pool.query(`SELECT count(*)::int AS n FROM outbox WHERE event_type = 'gitlab.events.v1.${type}'`)).rows[0].n as number;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateAccessRequests(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    deps = { pool, identity, projects, topic: 'test.access_requests' } as never;
    service = accessRequestsService(deps);
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('records a request once; members and managers are refused', async () => {
    const { request } = await service.requestAccess({ source: GROUP }, ctx(requester));
    expect(request).toMatchObject({ userId: 2, username: 'requester', name: 'Requester', state: 'active' });
    const again = await rejection(service.requestAccess({ source: GROUP }, ctx(requester)));
    expect(again.fields).toEqual({ user_id: ['already exists in source'] });
    expect((await rejection(service.requestAccess({ source: GROUP }, ctx(owner)))).kind).toBe('forbidden'); // already a member
    expect((await rejection(service.listAccessRequests({ source: GROUP, page: 1, perPage: 20 }, ctx(requester)))).kind).toBe('forbidden');
    const listed = await service.listAccessRequests({ source: GROUP, page: 1, perPage: 20 }, ctx(owner));
    expect(listed.requests.map((r) => r.userId)).toEqual([2]);
    expect(await events('AccessRequested')).toBe(1);
  });

  it('leaves a durable intent when the owning service is down, and completes it later: one member, no request', async () => {
    outage = 1;
    const down = await rejection(service.approveAccessRequest({ source: GROUP, userId: 2, accessLevel: 40 }, ctx(owner)));
    expect(down.kind).toBe('unavailable');
    expect(await state()).toEqual([{ source_kind: 'group', user_id: 2, state: 'approving', approved_level: 40 }]);
    expect((await service.listAccessRequests({ source: GROUP, page: 1, perPage: 20 }, ctx(owner))).requests).toEqual([]); // being approved
    expect(await completeApprovals(deps, logger, 0)).toBe(1);
    expect(await state()).toEqual([]);
    expect(members.get('group:2')).toBe(40);
    expect(await events('AccessRequestApproved')).toBe(1);
    expect(await completeApprovals(deps, logger, 0)).toBe(0); // nothing left, nothing twice
  });

  it('finishes an approval whose membership got through before a crash (idempotent add)', async () => {
    members.delete('group:2');
    await service.requestAccess({ source: GROUP }, ctx(requester));
    await pool.query("UPDATE access_requests SET state = 'approving', approved_level = 30, approved_by_id = 1");
    members.set('group:2', 30); // the add happened; the delete did not
    expect(await completeApprovals(deps, logger, 0)).toBe(1);
    expect(await state()).toEqual([]);
  });

  it('approves a project request at once; a refused membership puts the request back to pending', async () => {
    await service.requestAccess({ source: PROJECT }, ctx(requester));
    const approved = await service.approveAccessRequest({ source: PROJECT, userId: 2, accessLevel: 0 }, ctx(owner));
    expect(approved.member).toMatchObject({ userId: 2, accessLevel: 30 });
    expect(await state()).toEqual([]);
    await service.requestAccess({ source: PROJECT }, ctx(other));
    const refused = await rejection(service.approveAccessRequest({ source: PROJECT, userId: 3, accessLevel: 20 }, ctx(owner)));
    expect(refused.kind).toBe('invalid');
    expect(await state()).toEqual([{ source_kind: 'project', user_id: 3, state: 'pending', approved_level: null }]);
    const owner50 = await rejection(service.approveAccessRequest({ source: PROJECT, userId: 3, accessLevel: 50 }, ctx(owner)));
    expect(owner50.fields).toEqual({ access_level: ['is not included in the list'] });
    expect(await state()).toEqual([{ source_kind: 'project', user_id: 3, state: 'pending', approved_level: null }]);
    const unknown = await rejection(service.approveAccessRequest({ source: PROJECT, userId: 9, accessLevel: 30 }, ctx(owner)));
    expect([unknown.kind, unknown.message]).toEqual(['not_found', 'record']);
  });

  it('lets a requester withdraw and a manager deny; others are refused', async () => {
    expect((await rejection(service.denyAccessRequest({ source: PROJECT, userId: 3 }, ctx(requester)))).kind).toBe('forbidden');
    await service.denyAccessRequest({ source: PROJECT, userId: 3 }, ctx(other));
    expect(await state()).toEqual([]);
    expect((await rejection(service.denyAccessRequest({ source: PROJECT, userId: 3 }, ctx(owner)))).kind).toBe('not_found');
    expect(await events('AccessRequestDenied')).toBe(1);
  });

  it('completes an interrupted approval with the approver\'s rights as they are then: one who lost them adds no member', async () => {
    members.delete('group:2');
    await service.requestAccess({ source: GROUP }, ctx(requester));
    outage = 1;
    expect((await rejection(service.approveAccessRequest({ source: GROUP, userId: 2, accessLevel: 40 }, ctx(owner)))).kind).toBe('unavailable');
    expect(await state()).toEqual([{ source_kind: 'group', user_id: 2, state: 'approving', approved_level: 40 }]);
    members.delete('group:1'); // the approver is removed from the group before the loop completes the approval
    const approvals = await events('AccessRequestApproved');
    try {
      expect(await completeApprovals(deps, logger, 0)).toBe(0);
      expect(members.has('group:2')).toBe(false);
      // As GitLab leaves a request whose approval was refused: pending, for someone who may approve it.
      expect(await state()).toEqual([{ source_kind: 'group', user_id: 2, state: 'pending', approved_level: null }]);
      expect(await events('AccessRequestApproved')).toBe(approvals);
    } finally {
      members.set('group:1', 50);
    }
  });
});
