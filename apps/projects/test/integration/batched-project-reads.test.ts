import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { identityV1, projectsV1 } from '@glp/proto';
import { currentContext, DomainError, fromErrorPayload, requestSqlQueries, signActor, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { ProjectPathHints } from '../../src/cache/project-path-hints';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';
import { startProjectsGrpc, type ProjectsGrpcClient } from './projects-grpc';

const SECRET = 'batched-reads-secret';
const GET_PROJECTS = '/gitlab.projects.v1.ProjectsService/GetProjects';
const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const root = user(1, 'root', true);
const alice = user(2, 'alice');
const bob = user(3, 'bob');
const carol = user(4, 'carol'); // a Reporter of group "team" (identity says so), nothing else
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const { VISIBILITY_PRIVATE: PRIVATE, VISIBILITY_PUBLIC: PUBLIC } = projectsV1.Visibility;
const byId = (id: number) => projectsV1.GetProjectRequest.fromPartial({ selector: { $case: 'id', value: id } });
const byPath = (fullPath: string) => projectsV1.GetProjectRequest.fromPartial({ selector: { $case: 'fullPath', value: fullPath } });

/**
 * GetProjects (the gateway's coalesced GET /projects/:id) through a real gRPC server: every item answered as GetProject
 * answers its caller (errors per item, MOVED with the id), callers verified per item and run in their own context, and
 * the by-id rows read in one statement per caller.
 */
describe('GetProjects: several callers\' project reads in one call', () => {
  const schema = uniqueName('it_batched_reads');
  let pool: Pool;
  let grpc: Awaited<ReturnType<typeof startProjectsGrpc>> | undefined;
  let client: ProjectsGrpcClient;
  let service: ReturnType<typeof projectsService>;
  const identityCallers: { user: number; caller?: string; requestId?: string }[] = [];
  const identity = {
    getNamespace: jest.fn(async (r: identityV1.GetNamespaceRequest) => {
      if (r.selector?.$case === 'id' && r.selector.value === 500) {
        return { namespace: identityV1.Namespace.fromPartial({ id: 500, name: 'Team', path: 'team', kind: 'group', fullPath: 'team', version: 1 }), callerAccessLevel: 50 };
      }
      throw new DomainError('not_found', 'Namespace');
    }),
    getGroup: jest.fn(async () => ({ group: identityV1.Group.fromPartial({ id: 500, path: 'team', fullPath: 'team', visibility: 'private' }) })),
    getUserGroupAccess: jest.fn(async (r: identityV1.GetUserGroupAccessRequest) => {
      // Whose call this is: the item's caller and request id, not the gateway's.
      identityCallers.push({ user: r.userId, caller: currentContext()?.actor?.username, requestId: currentContext()?.requestId });
      return { groups: r.userId === carol.id ? [{ groupId: 500, accessLevel: 20 }] : r.userId === alice.id ? [{ groupId: 500, accessLevel: 50 }] : [] };
    }),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => ({
      user: identityV1.User.fromPartial({ id: r.selector?.$case === 'id' ? r.selector.value : 0, username: 'u', state: 'active', projectsLimit: 100000 }),
    })),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
  const ids: Record<string, number> = {};

  const encoded = (request: projectsV1.GetProjectRequest) => projectsV1.GetProjectRequest.encode(request).finish();
  const item = (actor: Actor, request: projectsV1.GetProjectRequest, requestId = `req-${actor.username || 'anon'}`) =>
    ({ request, actor: client.signActorFor('getProjects', actor, encoded(request)), requestId });
  const getProjects = (items: projectsV1.GetProjectsItem[]) => client.getProjects({ items }, { actor: { kind: 'system', id: 0, username: 'gateway', admin: true, scopes: ['api'] } });
  /** What GetProject answers this caller for this read: the project, or its error as an ErrorPayload would carry it. */
  const single = async (actor: Actor, request: projectsV1.GetProjectRequest) => {
    try {
      return { project: (await client.getProject(request, { actor })).project };
    } catch (err) {
      const e = err as DomainError;
      return { error: { kind: e.kind, message: e.message, movedToId: e.movedToId ?? 0 } };
    }
  };
  const asSingle = (r: projectsV1.GetProjectsResult) =>
    r.result?.$case === 'project' ? { project: r.result.value } : { error: { kind: r.result?.value.kind, message: r.result?.value.message, movedToId: r.result?.value.movedToId } };
  const sqlOfGetProjects = async () => (await requestSqlQueries.get()).values.find((v) => v.labels.method === GET_PROJECTS)?.value ?? 0;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    grpc = await startProjectsGrpc(service, { actorSecret: SECRET });
    client = grpc.client;
    await upsertNamespace(pool, { id: 10, name: 'alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, owner_id: alice.id, owner_username: 'alice', owner_name: 'Alice', owner_state: 'active', version: 1 });
    await upsertNamespace(pool, { id: 500, name: 'Team', path: 'team', kind: 'group', full_path: 'team', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 });
    const create = async (name: string, namespaceId: number, visibility: projectsV1.Visibility) =>
      (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId, visibility }), ctx(alice))).project!.id;
    ids.secret = await create('secret', 10, PRIVATE);
    ids.open = await create('open', 10, PUBLIC);
    ids.team = await create('team-app', 500, PRIVATE);
    ids.renamed = await create('old-name', 10, PRIVATE);
    await service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({ project: { selector: { $case: 'id', value: ids.renamed } }, path: 'new-name' }), ctx(alice));
  }, 60_000);
  afterAll(async () => {
    await grpc?.stop();
    await pool?.end();
    await dropSchemas(schema);
  });

  it('answers every item as GetProject answers its caller: projects, hidden ones NOT_FOUND, an old path MOVED with the id', async () => {
    const reads: [Actor, projectsV1.GetProjectRequest][] = [
      [root, byId(ids.secret)], [alice, byId(ids.secret)], [bob, byId(ids.secret)], [anonymous, byId(ids.open)],
      [anonymous, byId(ids.secret)], [carol, byId(ids.team)], [bob, byId(ids.team)], [alice, byPath('alice/old-name')],
      [alice, byPath('ALICE/New-Name')], [root, byId(999_999)], [alice, projectsV1.GetProjectRequest.fromPartial({ selector: { $case: 'id', value: ids.open }, statistics: true })],
      [root, byId(ids.secret)], // the same read twice in a batch
    ];
    const { results } = await getProjects(reads.map(([a, r], i) => item(a, r, `req-${i}`)));
    expect(results).toHaveLength(reads.length);
    const expected = await Promise.all(reads.map(([a, r]) => single(a, r)));
    expect(results.map(asSingle)).toEqual(expected);
    // and those answers are what they should be
    expect(results.map((r) => (r.result?.$case === 'project' ? r.result.value.id : r.result?.value.kind))).toEqual([
      ids.secret, ids.secret, 'not_found', ids.open, 'not_found', ids.team, 'not_found', 'moved', ids.renamed, 'not_found', ids.open, ids.secret,
    ]);
    expect(fromErrorPayload(results[7].result?.$case === 'error' ? results[7].result.value : undefined)).toMatchObject({ kind: 'moved', movedToId: ids.renamed });
    expect(results[10].result?.$case === 'project' && results[10].result.value.statistics).toBeTruthy();
  });

  it('asks identity as each item\'s caller, with the item\'s request id', async () => {
    identityCallers.length = 0;
    await getProjects([item(carol, byId(ids.team), 'req-carol'), item(bob, byId(ids.team), 'req-bob')]);
    expect(identityCallers.sort((a, b) => a.user - b.user)).toEqual([
      { user: bob.id, caller: 'bob', requestId: 'req-bob' }, { user: carol.id, caller: 'carol', requestId: 'req-carol' },
    ]);
  });

  it('fails only the item whose caller is not signed for GetProjects: forged, for another method, or missing', async () => {
    const bobs = client.signActorFor('getProjects', bob, encoded(byId(ids.secret)));
    const forged = { payload: bobs.payload.replace(/.$/, 'A'), signature: bobs.signature };
    const otherMethod = signActor(root, SECRET, '/gitlab.projects.v1.ProjectsService/GetProject');
    const { results } = await getProjects([
      { request: byId(ids.secret), actor: forged, requestId: 'f' },
      { request: byId(ids.secret), actor: otherMethod, requestId: 'o' },
      { request: byId(ids.secret), actor: undefined, requestId: 'm' },
      item(alice, byId(ids.secret)),
    ]);
    expect(results.map((r) => (r.result?.$case === 'project' ? r.result.value.id : r.result?.value.kind))).toEqual(['unauthenticated', 'unauthenticated', 'unauthenticated', ids.secret]);
  });

  it('fails an item whose caller was signed for another item (a caller lifted from one read and put on another)', async () => {
    // The administrator's caller, captured from an item reading the public project, put on a read of a private one.
    const captured = client.signActorFor('getProjects', root, encoded(byId(ids.open)));
    const { results } = await getProjects([
      { request: byId(ids.secret), actor: captured, requestId: 'lifted' },
      { request: byId(ids.open), actor: captured, requestId: 'own' },
    ]);
    expect(results.map((r) => (r.result?.$case === 'project' ? r.result.value.id : r.result?.value.kind))).toEqual(['unauthenticated', ids.open]);
  });

  it('reads the rows of the by-id items in one statement per caller, whatever the number of items', async () => {
    const many = Array.from({ length: 40 }, (_, i) => item(root, byId(i % 2 ? ids.secret : ids.open)));
    const before = await sqlOfGetProjects();
    const { results } = await getProjects(many);
    expect(results.every((r) => r.result?.$case === 'project')).toBe(true);
    expect(await sqlOfGetProjects()).toBe(before + 1);
    // two callers, two statements
    const mixed = [...many.slice(0, 10), ...Array.from({ length: 10 }, () => item(alice, byId(ids.secret)))];
    const beforeMixed = await sqlOfGetProjects();
    await getProjects(mixed);
    expect(await sqlOfGetProjects()).toBe(beforeMixed + 2);
  });

  it('finds the projects of the by-path items in one statement for the batch, then reads them with the by-id ones', async () => {
    const paths = ['alice/open', 'ALICE/Open', 'team/team-app', 'Team/TEAM-APP', 'alice/secret'];
    const many = Array.from({ length: 40 }, (_, i) => item(root, byPath(paths[i % paths.length]!)));
    const before = await sqlOfGetProjects();
    const { results } = await getProjects([...many, item(root, byId(ids.open))]);
    expect(results.map((r) => (r.result?.$case === 'project' ? r.result.value.id : r.result?.value.kind))).toEqual(
      [...many.map((_, i) => [ids.open, ids.open, ids.team, ids.team, ids.secret][i % paths.length]), ids.open],
    );
    expect(await sqlOfGetProjects()).toBe(before + 2); // the paths' projects, then root's rows (by path and by id)
    // A path no project is at now costs its redirect look-up, as GetProject's: an old path is MOVED, an unknown one NOT_FOUND.
    const beforeMisses = await sqlOfGetProjects();
    const { results: misses } = await getProjects([...many.slice(0, 10), item(alice, byPath('alice/old-name')), item(alice, byPath('alice/nothing-here')), item(alice, byPath('no-slash'))]);
    expect(misses.slice(10).map((r) => r.result?.value.kind)).toEqual(['moved', 'not_found', 'not_found']);
    expect(await sqlOfGetProjects()).toBe(beforeMisses + 2 + 3);
  });

  it('with path hints, reads a path found before by its project\'s id, and never answers from a stale hint', async () => {
    const hints = new ProjectPathHints(100);
    const hinted = await startProjectsGrpc(projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000, pathHints: hints }), { actorSecret: SECRET });
    try {
      const batch = async (...paths: string[]) => {
        const before = await sqlOfGetProjects();
        const { results } = await hinted.client.getProjects(
          { items: paths.map((p) => ({ request: byPath(p), actor: hinted.client.signActorFor('getProjects', alice, encoded(byPath(p))), requestId: 'req-hint' })) },
          { actor: { kind: 'system', id: 0, username: 'gateway', admin: true, scopes: ['api'] } },
        );
        const answers = results.map((r) => (r.result?.$case === 'project' ? r.result.value.id : `${r.result?.value.kind} ${r.result?.value.movedToId || ''}`.trim()));
        return { answers, statements: (await sqlOfGetProjects()) - before };
      };
      const create = async (name: string) => (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId: 10, visibility: PRIVATE }), ctx(alice))).project!.id;
      const first = await create('hinted');
      expect(await batch('alice/hinted', 'ALICE/HINTED')).toEqual({ answers: [first, first], statements: 2 }); // found, then read
      expect(await batch('alice/hinted', 'Alice/Hinted')).toEqual({ answers: [first, first], statements: 1 }); // read by the hint
      // Renamed: the hinted row is not at that path any more; the path is an old one now.
      await service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({ project: { selector: { $case: 'id', value: first } }, path: 'hinted-renamed' }), ctx(alice));
      expect((await batch('alice/hinted')).answers).toEqual([`moved ${first}`]);
      expect((await batch('alice/hinted-renamed')).answers).toEqual([first]);
      // A path another project took while the hint still named the first one.
      expect((await batch('alice/hinted-renamed', 'alice/hinted-renamed')).statements).toBe(1);
      await service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({ project: { selector: { $case: 'id', value: first } }, path: 'hinted-again' }), ctx(alice));
      const second = await create('hinted-renamed');
      expect((await batch('alice/hinted-renamed')).answers).toEqual([second]);
      expect(await batch('alice/hinted-renamed')).toEqual({ answers: [second], statements: 1 }); // hinted anew
      // Deleted: the hint names no row.
      await pool.query('DELETE FROM projects WHERE id = $1', [second]);
      expect((await batch('alice/hinted-renamed')).answers).toEqual(['not_found']);
    } finally {
      await hinted.stop();
    }
  });

  it('refuses more than 100 items, and answers an empty batch with no results', async () => {
    const tooMany = Array.from({ length: 101 }, () => item(root, byId(ids.open)));
    expect(await rejection(getProjects(tooMany))).toMatchObject({ kind: 'bad_request', message: 'at most 100 items' });
    expect((await getProjects([])).results).toEqual([]);
  });
});
