import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { projectsV1 } from '@glp/proto';
import type { Actor, CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { EncodedProjectCache } from '../../src/grpc/encoded-projects';
import { projectsService, servedProjectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';
import { noGroupsIdentity } from './identity-stub';
import { startProjectsGrpc, type ProjectsGrpcClient } from './projects-grpc';

const SECRET = 'encoded-listings-secret';
const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const root = user(1, 'root', true);
const alice = user(2, 'alice');
const bob = user(3, 'bob');
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const { VISIBILITY_PUBLIC: PUBLIC, VISIBILITY_INTERNAL: INTERNAL } = projectsV1.Visibility;
const list = (r: Partial<projectsV1.ListProjectsRequest> = {}) => projectsV1.ListProjectsRequest.fromPartial({ page: 1, perPage: 20, orderBy: 'id', sort: 'asc', ...r });

/**
 * ListProjects answers through a real gRPC server whose listed projects are encoded through the encoding cache
 * (grpc/encoded-projects.ts): after every kind of change that reaches a listed project (its row, its namespace, the
 * caller's membership, a group link, statistics asked), the answer on the wire is the one encoded afresh.
 */
describe('ListProjects with kept encodings', () => {
  const schema = uniqueName('it_encoded_listings');
  let pool: Pool;
  let grpc: Awaited<ReturnType<typeof startProjectsGrpc>> | undefined;
  let client: ProjectsGrpcClient;
  let service: ReturnType<typeof projectsService>;
  const cache = new EncodedProjectCache(1024 * 1024);
  const ids: number[] = [];
  /**
   * The names of the statements the served service ran (named ones; others as 'unnamed'), those on its generic-plan
   * connections as 'generic:<name>'.
   */
  const statements: string[] = [];
  let genericPool: Pool;
  /** A listing's statement (listingStatement: its text's name), on the main pool or the generic-plan one. */
  const LISTING = expect.stringMatching(/^listing_\d+$/);
  const GENERIC_LISTING = expect.stringMatching(/^generic:listing_\d+$/);

  /** The answer through the server (kept encodings) and the use case's own answer encoded afresh, both decoded. */
  const both = async (actor: Actor, r: Partial<projectsV1.ListProjectsRequest> = {}) => {
    const wire = await client.listProjects(list(r), { actor });
    const fresh = projectsV1.ListProjectsResponse.decode(projectsV1.ListProjectsResponse.encode(await service.listProjects(list(r), ctx(actor))).finish());
    return { wire, fresh };
  };
  const expectFresh = async (actor: Actor, r: Partial<projectsV1.ListProjectsRequest> = {}) => {
    const { wire, fresh } = await both(actor, r);
    expect(wire).toEqual(fresh);
    return wire;
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    // The answers encoded afresh come from a service without the cache; the served one reads its statements through a
    // pool that notes their names.
    service = projectsService({ pool, identity: noGroupsIdentity(), topic: 'test.projects', countLimit: 10000 });
    genericPool = createPool({ url: databaseUrl, schema, max: 2, genericPlans: true });
    const noting = (target: Pool, prefix: string) => new Proxy(target, {
      get: (_, key) => (key === 'query'
        ? (q: unknown, v?: unknown[]) => {
          statements.push(prefix + (typeof q === 'object' && q !== null && 'name' in q ? String(q.name) : 'unnamed'));
          return target.query(q as string, v);
        }
        : Reflect.get(target, key, target)),
    });
    const served = servedProjectsService(
      { pool: noting(pool, ''), genericPlanPool: noting(genericPool, 'generic:'), identity: noGroupsIdentity(), topic: 'test.projects', countLimit: 10000 },
      cache,
    );
    grpc = await startProjectsGrpc(served.handlers, { actorSecret: SECRET, definition: served.definition });
    client = grpc.client;
    await upsertNamespace(pool, { id: 10, name: 'alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, owner_id: alice.id, owner_username: 'alice', owner_name: 'Alice', owner_state: 'active', version: 1 });
    await upsertNamespace(pool, { id: 500, name: 'Team', path: 'team', kind: 'group', full_path: 'team', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 });
    for (const [name, visibility] of [['one', PUBLIC], ['two', INTERNAL], ['three', PUBLIC]] as const) {
      ids.push(Number((await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, visibility }), ctx(alice))).project!.id));
    }
  }, 60_000);
  afterAll(async () => {
    await grpc?.stop();
    await pool?.end();
    await genericPool?.end();
    await dropSchemas(schema);
  });

  it('keeps each listed project\'s encoding and answers a second listing from it, byte for byte what encoding afresh gives', async () => {
    const first = await expectFresh(alice);
    expect(first.projects.map((p) => p.name)).toEqual(['one', 'two', 'three']);
    const kept = cache.stats.entries;
    expect(kept).toBe(3);
    statements.length = 0;
    await expectFresh(alice);
    expect(cache.stats.entries).toBe(kept);
    // Seen before: the page's versions are read with its ids and count's bound (listing_versions, one statement), not
    // its rows; the other statement counts alice's own private projects (none). Both prepared by name.
    expect(statements).toEqual([LISTING, LISTING]);
    // A listing whose page is chosen otherwise (a search: its matches first, then the page among them) reads the
    // versions with the page too.
    statements.length = 0;
    expect((await expectFresh(alice, { search: 'three' })).projects.map((p) => p.name)).toEqual(['three']);
    expect(statements).toEqual([LISTING, LISTING]);
    // A keyset page (the gateway's: after an id, no count): one statement.
    statements.length = 0;
    expect((await expectFresh(alice, { idAfter: ids[0], skipCount: true })).projects.map((p) => p.name)).toEqual(['two', 'three']);
    expect(statements).toEqual([LISTING]);
    expect(cache.stats.entries).toBe(kept);
    // Listings no value plans differently (plansAlikeForAnyValues: an administrator's or anonymous caller's, or one
    // visibility every signed-in user reads) run on the generic-plan connections, one statement each (and the rows of
    // projects not yet kept for that caller on the main pool); alice's own listings above did not.
    for (const [actor, r] of [[root, {}], [root, { visibility: INTERNAL, archived: false }], [anonymous, {}], [alice, { visibility: PUBLIC }]] as const) {
      statements.length = 0;
      await expectFresh(actor, r);
      expect(statements.filter((n) => n !== 'project_rows_by_ids')).toEqual([GENERIC_LISTING]);
    }
    statements.length = 0;
    // Other callers, other entries: their access differs (alice owns the namespace; bob and the anonymous caller do not).
    const forBob = await expectFresh(bob);
    expect(forBob.projects.map((p) => [p.callerAccessLevel, p.runnersToken])).toEqual([[0, ''], [0, ''], [0, '']]);
    expect(first.projects.map((p) => [p.callerAccessLevel, p.runnersToken !== ''])).toEqual([[50, true], [50, true], [50, true]]);
    await expectFresh(anonymous);
    await expectFresh(root);
    expect(cache.stats.entries).toBe(kept + 3 + 2 + 3);
    expect(statements.filter((n) => n.startsWith('generic:'))).toEqual([GENERIC_LISTING, GENERIC_LISTING]);
  });

  it('answers a changed project, namespace or membership as it now is', async () => {
    await service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({ project: { selector: { $case: 'id', value: ids[0] } }, name: 'one renamed' }), ctx(alice));
    statements.length = 0;
    expect((await expectFresh(alice)).projects.map((p) => p.name)).toEqual(['one renamed', 'two', 'three']);
    expect(statements.filter((n) => n === 'project_rows_by_ids')).toHaveLength(1); // the changed one's row, beside two kept
    await upsertNamespace(pool, { id: 10, name: 'Alice Renamed', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, owner_id: alice.id, owner_username: 'alice', owner_name: 'Alice Renamed', owner_state: 'active', version: 2 });
    expect((await expectFresh(bob)).projects.map((p) => p.namespace?.name)).toEqual(['Alice Renamed', 'Alice Renamed', 'Alice Renamed']);
    await pool.query('INSERT INTO project_members (project_id, user_id, access_level, created_by) VALUES ($1, $2, 30, $3)', [ids[1], bob.id, alice.id]);
    expect((await expectFresh(bob)).projects.map((p) => p.projectAccessLevel)).toEqual([0, 30, 0]);
    await pool.query('UPDATE project_members SET access_level = 40 WHERE project_id = $1 AND user_id = $2', [ids[1], bob.id]);
    expect((await expectFresh(bob)).projects.map((p) => [p.projectAccessLevel, p.runnersToken !== ''])).toEqual([[0, false], [40, true], [0, false]]);
  });

  it('encodes afresh what reads other rows or extras: a group link, statistics', async () => {
    await upsertNamespace(pool, { id: 700, name: 'Partners', path: 'partners', kind: 'group', full_path: 'partners', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 });
    await pool.query('INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, 700, 30)', [ids[2]]);
    expect((await expectFresh(alice)).projects[2]?.sharedWithGroups.map((g) => g.groupName)).toEqual(['Partners']);
    // The group renamed: the link's group name is read from its namespace row, not from the project's.
    await upsertNamespace(pool, { id: 700, name: 'Partners Inc', path: 'partners', kind: 'group', full_path: 'partners', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 2 });
    expect((await expectFresh(alice)).projects[2]?.sharedWithGroups.map((g) => g.groupName)).toEqual(['Partners Inc']);
    const withStatistics = await expectFresh(alice, { statistics: true });
    expect(withStatistics.projects.every((p) => p.statistics !== undefined)).toBe(true);
    expect((await expectFresh(alice)).projects.every((p) => p.statistics === undefined)).toBe(true);
  });
});
