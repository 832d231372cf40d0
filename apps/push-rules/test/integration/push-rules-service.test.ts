import { Metadata } from '@grpc/grpc-js';
import { createPool, withTransaction, type Pool } from '@glp/db';
import { identityV1, projectsV1, pushRulesV1 } from '@glp/proto';
import { createLogger, DomainError, systemActor, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import type { PushRulesDeps } from '../../src/app/deps';
import { onProjectDeleted } from '../../src/events/project-consumers';
import { pushRulesService } from '../../src/grpc/push-rules-service';
import { migratePushRules } from '../../src/migrations';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const maintainer = user(1, 'maintainer');
const developer = user(2, 'developer');
const admin = user(9, 'root', true);
const repoAdmin = systemActor('repo-admin');
const P1: pushRulesV1.ProjectRef = { selector: { $case: 'id', value: 100 } };
const P2: pushRulesV1.ProjectRef = { selector: { $case: 'id', value: 200 } };
const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
createLogger('push-rules-test', 'silent');

describe('push-rules service against PostgreSQL', () => {
  const schema = uniqueName('it_push_rules');
  let pool: Pool;
  let service: ReturnType<typeof pushRulesService>;
  const levels: Record<string, number> = { '100:1': 40, '100:2': 30, '200:1': 40 };
  const projects = {
    getProject: jest.fn(async (r: projectsV1.GetProjectRequest, o?: { actor?: Actor }) => {
      const id = r.selector?.$case === 'id' ? r.selector.value : 0;
      if (id !== 100 && id !== 200) throw new DomainError('not_found', 'Project');
      return { project: projectsV1.Project.fromPartial({ id, callerAccessLevel: levels[`${id}:${o?.actor?.id}`] ?? 0 }) };
    }),
  };
  const users: Record<string, number> = { 'ann@example.com': 1, 'bob@example.com': 2 };
  const identity = {
    findUsersByEmails: jest.fn(async (r: identityV1.FindUsersByEmailsRequest, o?: { actor?: Actor }) => {
      if (o?.actor?.kind !== 'system') throw new DomainError('forbidden', '');
      return { matches: r.emails.filter((e) => users[e.toLowerCase()]).map((email) => ({ email, userId: users[email.toLowerCase()]! })) };
    }),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const id = r.selector?.$case === 'id' ? r.selector.value : 0;
      return { user: identityV1.User.fromPartial({ id, name: id === 1 ? 'Ann' : 'Bob', email: id === 1 ? 'ann@example.com' : 'bob@example.com' }), view: 'admin' };
    }),
  };
  const count = async () => (await pool.query('SELECT count(*)::int AS n FROM push_rules')).rows[0].n as number;
  const commit = (over: Partial<pushRulesV1.PushedCommit> = {}) => pushRulesV1.PushedCommit.fromPartial({
    id: B, message: 'feat: x', authorName: 'Ann', authorEmail: 'ann@example.com', committerName: 'Ann', committerEmail: 'ann@example.com', ...over,
  });
  const check = (projectId: number, commits: pushRulesV1.PushedCommit[], changes = [{ ref: 'refs/heads/feature', oldRev: A, newRev: B }], pusherId = 1) =>
    service.checkPush({ projectId, pusher: { userId: pusherId, username: 'x', name: 'x' }, changes, defaultBranch: 'main', commits }, ctx(repoAdmin));

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migratePushRules(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    const deps: PushRulesDeps = { pool, projects, identity } as never;
    service = pushRulesService(deps);
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('creates, reads, edits and deletes the one rule of a project', async () => {
    expect((await service.getPushRule({ project: P1 }, ctx(maintainer))).rule).toBeUndefined();
    const { rule } = await service.createPushRule({ project: P1, input: { commitMessageRegex: '^feat', denyDeleteTag: true, maxFileSize: 5 } }, ctx(maintainer));
    expect(rule).toMatchObject({ projectId: 100, commitMessageRegex: '^feat', denyDeleteTag: true, maxFileSize: 5, memberCheck: false, branchNameRegex: '' });
    expect(rule!.createdAt).toBeInstanceOf(Date);
    const again = await rejection(service.createPushRule({ project: P1, input: { memberCheck: true } }, ctx(maintainer)));
    expect([again.kind, again.message]).toEqual(['conflict', 'Project push rule exists']);
    const { rule: edited } = await service.updatePushRule({ project: P1, input: { memberCheck: true, commitMessageRegex: '' } }, ctx(admin));
    expect(edited).toMatchObject({ id: rule!.id, memberCheck: true, commitMessageRegex: '', denyDeleteTag: true, maxFileSize: 5 });
    expect((await service.getPushRule({ project: P1 }, ctx(maintainer))).rule).toMatchObject({ memberCheck: true });
    await service.deletePushRule({ project: P1 }, ctx(maintainer));
    // Idempotent: deleting again leaves the project without a rule.
    await expect(service.deletePushRule({ project: P1 }, ctx(maintainer))).resolves.toEqual({});
    const edit = await rejection(service.updatePushRule({ project: P1, input: { memberCheck: true } }, ctx(maintainer)));
    expect([edit.kind, edit.message]).toEqual(['not_found', 'Push Rule']);
    expect(await count()).toBe(0);
  });

  it('refuses developers (403) and hidden projects (404 Project)', async () => {
    expect((await rejection(service.getPushRule({ project: P1 }, ctx(developer)))).kind).toBe('forbidden');
    expect((await rejection(service.createPushRule({ project: P1, input: { memberCheck: true } }, ctx(developer)))).kind).toBe('forbidden');
    const hidden = await rejection(service.getPushRule({ project: { selector: { $case: 'id', value: 300 } } }, ctx(maintainer)));
    expect([hidden.kind, hidden.message]).toEqual(['not_found', 'Project']);
    expect(await count()).toBe(0);
  });

  it('writes nothing when anything is invalid, on create and on edit', async () => {
    const bad = await rejection(service.createPushRule({ project: P2, input: { denyDeleteTag: true, fileNameRegex: '(', maxFileSize: -1 } }, ctx(maintainer)));
    expect([bad.kind, bad.fields]).toEqual(['invalid', { max_file_size: ['must be greater than or equal to 0'], file_name_regex: ['not valid RE2 syntax: missing ): ('] }]);
    expect(await count()).toBe(0);
    await service.createPushRule({ project: P2, input: { branchNameRegex: '^f' } }, ctx(maintainer));
    const badEdit = await rejection(service.updatePushRule({ project: P2, input: { branchNameRegex: 'x'.repeat(512), denyDeleteTag: true } }, ctx(maintainer)));
    expect(badEdit.fields).toEqual({ branch_name_regex: ['is too long (maximum is 511 characters)'] });
    expect((await service.getPushRule({ project: P2 }, ctx(maintainer))).rule).toMatchObject({ branchNameRegex: '^f', denyDeleteTag: false });
  });

  it('GetPushChecks / CheckPush answer repo-admin only, with the stored rule', async () => {
    expect((await rejection(service.getPushChecks({ projectId: 100 }, ctx(maintainer)))).kind).toBe('forbidden');
    expect((await rejection(service.checkPush({ projectId: 100, changes: [], defaultBranch: '', commits: [] }, ctx(systemActor('hooks'))))).kind).toBe('forbidden');
    expect(await service.getPushChecks({ projectId: 100 }, ctx(repoAdmin))).toEqual({ active: false, needsCommits: false, needsFiles: false, needsSignatures: false, maxFileSizeBytes: 0 });
    expect(await check(100, [commit()])).toEqual({ allowed: true, message: '' });
    await service.createPushRule({ project: P1, input: { memberCheck: true, commitCommitterCheck: true, maxFileSize: 1 } }, ctx(maintainer));
    expect(await service.getPushChecks({ projectId: 100 }, ctx(repoAdmin))).toEqual({ active: true, needsCommits: true, needsFiles: true, needsSignatures: false, maxFileSizeBytes: 1048576 });

    identity.findUsersByEmails.mockClear();
    identity.getUser.mockClear();
    const commits = [commit(), commit({ authorEmail: 'BOB@example.com' }), commit({ authorEmail: 'ann@example.com' })];
    expect(await check(100, commits)).toEqual({ allowed: true, message: '' });
    // one look-up for all distinct addresses, as the push-rules system actor; one for the pusher
    expect(identity.findUsersByEmails).toHaveBeenCalledTimes(1);
    expect(identity.findUsersByEmails.mock.calls[0]![0].emails).toEqual(['ann@example.com', 'bob@example.com']);
    expect(identity.findUsersByEmails.mock.calls[0]![1]).toEqual({ actor: systemActor('push-rules') });
    expect(identity.getUser).toHaveBeenCalledTimes(1);

    expect(await check(100, [commit(), commit({ authorEmail: 'zed@else.org' })])).toEqual({ allowed: false, message: "Author 'zed@else.org' is not a member of team" });
    expect(await check(100, [commit()], undefined, 2)).toEqual({
      allowed: false, message: "You cannot push commits for 'ann@example.com'. You can only push commits that were committed with one of your own verified emails.",
    });
    expect(await check(100, [commit({ files: [{ path: 'big.iso', oldPath: '', status: 'added', size: 2 * 1048576 }] })]))
      .toEqual({ allowed: false, message: 'File "big.iso" is larger than the allowed size of 1 MB' });
    // a branch deletion checks no commits and asks identity nothing
    identity.findUsersByEmails.mockClear();
    expect(await check(100, [], [{ ref: 'refs/heads/feature', oldRev: A, newRev: Z }])).toEqual({ allowed: true, message: '' });
    expect(identity.findUsersByEmails).not.toHaveBeenCalled();
  });

  it('an identity failure fails the check, never allows the push', async () => {
    identity.findUsersByEmails.mockRejectedValueOnce(new DomainError('unavailable', 'identity is down'));
    expect((await rejection(check(100, [commit({ authorEmail: 'x@y.z' })]))).kind).toBe('unavailable');
  });

  it('ProjectDeleted removes the project\'s rule (idempotent)', async () => {
    expect((await pool.query('SELECT count(*)::int AS n FROM push_rules WHERE project_id = 100')).rows[0].n).toBe(1);
    await withTransaction(pool, (client) => onProjectDeleted(client, { projectId: 100, pathWithNamespace: 'a/b', namespaceId: 1, repositoryStorage: '' } as never));
    await withTransaction(pool, (client) => onProjectDeleted(client, { projectId: 100 } as never));
    expect((await pool.query('SELECT count(*)::int AS n FROM push_rules WHERE project_id = 100')).rows[0].n).toBe(0);
    expect((await service.getPushRule({ project: P1 }, ctx(maintainer))).rule).toBeUndefined();
  });
});
