import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { projectsV1 } from '@glp/proto';
import type { Actor, CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { upsertNamespace } from '../../src/store/namespace-replica-store';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { noGroupsIdentity } from './identity-stub';

const user = (id: number, username: string, admin = false, external = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'], external });
const root = user(1, 'root', true);
const alice = user(2, 'alice');
const bob = user(3, 'bob');
const ext = user(4, 'ext', false, true);
const anon: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const list = (r: Partial<projectsV1.ListProjectsRequest>) => projectsV1.ListProjectsRequest.fromPartial({ page: 1, perPage: 2, orderBy: 'id', sort: 'asc', ...r });
const { VISIBILITY_PUBLIC: PUBLIC, VISIBILITY_INTERNAL: INTERNAL, VISIBILITY_PRIVATE: PRIVATE } = projectsV1.Visibility;

/**
 * project_listing_counts (migration 0017): kept exact by the triggers through every kind of write, and used as a lower
 * bound that skips the capped count walk only when the answer is "more than the cap" anyway.
 */
describe('listing counts', () => {
  const schema = uniqueName('it_listing_counts');
  let pool: Pool;
  /** A cap of 3, so a handful of projects crosses it; and one of 10,000, for exact totals. */
  let capped: ReturnType<typeof projectsService>;
  let exact: ReturnType<typeof projectsService>;
  const identity = noGroupsIdentity();
  const make = async (actor: Actor, name: string, visibility: projectsV1.Visibility) =>
    Number((await exact.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, visibility }), ctx(actor))).project!.id);

  /** The counters summed over their slots, next to what a full count of projects says. */
  const countsAndTruth = async () => {
    const counters = await pool.query<{ visibility: string; archived: boolean; n: string }>(
      `SELECT visibility, archived, sum(n)::text AS n FROM project_listing_counts GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`,
    );
    const truth = await pool.query<{ visibility: string; archived: boolean; n: string }>(
      `SELECT visibility, archived, count(*)::text AS n FROM projects WHERE NOT pending_delete GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    return { counters: counters.rows, truth: truth.rows };
  };
  const expectExact = async () => {
    const { counters, truth } = await countsAndTruth();
    expect(counters).toEqual(truth);
  };

  /** A listing's total, its page size, and the statements it sent: capped count walks and reads of the bound. */
  const probe = async (service: ReturnType<typeof projectsService>, actor: Actor, r: Partial<projectsV1.ListProjectsRequest>) => {
    const spy = jest.spyOn(pool, 'query');
    try {
      const res = await service.listProjects(list(r), ctx(actor));
      const sent = spy.mock.calls.map(([q]) => (typeof q === 'string' ? q : (q as { text: string }).text));
      return {
        total: Number(res.total), projects: res.projects.length,
        walks: sent.filter((q) => q.includes('count(*)::int AS n FROM')).length, bounds: sent.filter((q) => q.includes('FROM project_listing_counts')).length,
      };
    } finally {
      spy.mockRestore();
    }
  };
  const totalOf = async (service: ReturnType<typeof projectsService>, actor: Actor, r: Partial<projectsV1.ListProjectsRequest>) => {
    const { total, walks, projects } = await probe(service, actor, r);
    return { total, walks, projects };
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    capped = projectsService({ pool, identity, topic: 'test.projects', countLimit: 3 });
    exact = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    for (const [id, u] of [[10, root], [20, alice], [30, bob], [40, ext]] as const) {
      await upsertNamespace(pool, { id, name: u.username, path: u.username, kind: 'user', full_path: u.username, parent_id: null, owner_id: u.id, owner_username: u.username, owner_name: u.username, owner_state: 'active', version: 1 });
    }
    for (const n of [1, 2, 3]) await make(alice, `pub ${n}`, PUBLIC);
    for (const n of [1, 2]) await make(alice, `int ${n}`, INTERNAL);
    for (const n of [1, 2]) await make(alice, `priv ${n}`, PRIVATE);
    await make(bob, 'bob pub', PUBLIC);
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('counts what the projects hold after creations, also concurrent ones', async () => {
    await expectExact();
    await Promise.all(Array.from({ length: 8 }, (_, i) => make(bob, `burst ${i}`, i % 2 ? PUBLIC : PRIVATE)));
    await expectExact();
    expect((await countsAndTruth()).truth).toEqual([
      { visibility: 'internal', archived: false, n: '2' }, { visibility: 'private', archived: false, n: '6' }, { visibility: 'public', archived: false, n: '8' },
    ]);
    await pool.query(`DELETE FROM projects WHERE name LIKE 'burst %'`);
    await expectExact();
  });

  it('follows visibility, archive and pending-deletion changes, and leaves other updates without a counter write', async () => {
    const [pub1] = (await pool.query<{ id: string }>(`SELECT id FROM projects WHERE name = 'pub 1'`)).rows;
    await pool.query(`UPDATE projects SET visibility = 'internal' WHERE id = $1`, [pub1!.id]);
    await expectExact();
    await pool.query(`UPDATE projects SET archived = true WHERE id = $1`, [pub1!.id]);
    await expectExact();
    await pool.query(`UPDATE projects SET pending_delete = true WHERE name = 'pub 2'`);
    await expectExact();
    await pool.query(`UPDATE projects SET pending_delete = false WHERE name = 'pub 2'`);
    await pool.query(`UPDATE projects SET visibility = 'public', archived = false WHERE id = $1`, [pub1!.id]);
    await expectExact();
    const before = (await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM project_listing_counts`)).rows[0]!.n;
    const xmins = async () => (await pool.query<{ x: string }>(`SELECT string_agg(xmin::text, ',' ORDER BY visibility, archived, slot) AS x FROM project_listing_counts`)).rows[0]!.x;
    const untouched = await xmins();
    await pool.query(`UPDATE projects SET last_activity_at = now(), star_count = star_count + 1, description = 'edited'`);
    expect(await xmins()).toBe(untouched); // no counter row rewritten
    expect((await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM project_listing_counts`)).rows[0]!.n).toBe(before);
    await expectExact();
  });

  it('keeps a bulk load exact, and a rolled-back one leaves nothing behind', async () => {
    const probe = await pool.connect();
    try {
      await probe.query('BEGIN');
      await probe.query(
        `INSERT INTO projects (namespace_id, name, path, visibility, creator_id)
         SELECT 30, 'bulk ' || g, 'bulk-' || g, (ARRAY['public', 'internal', 'private'])[1 + g % 3], 3 FROM generate_series(1, 3000) g`,
      );
      await expectExactOn(probe);
      await probe.query('ROLLBACK');
    } finally {
      probe.release();
    }
    await expectExact(); // the rolled-back load left nothing behind
    async function expectExactOn(c: { query: Pool['query'] }) {
      const counters = await c.query<{ visibility: string; n: string }>(`SELECT visibility, sum(n)::text AS n FROM project_listing_counts GROUP BY 1 ORDER BY 1`);
      const truth = await c.query<{ visibility: string; n: string }>(`SELECT visibility, count(*)::text AS n FROM projects WHERE NOT pending_delete GROUP BY 1 ORDER BY 1`);
      expect(counters.rows).toEqual(truth.rows);
      expect(Number(truth.rows.find((r) => r.visibility === 'public')!.n)).toBeGreaterThan(1000);
    }
  });

  it('skips the count walk where the bound passes the cap or is the count, and every total stays GitLab\'s', async () => {
    // 4 public, 2 internal, 2 private (alice's); the cap is 3.
    expect(await totalOf(capped, root, {})).toEqual({ total: -1, walks: 0, projects: 2 }); // 8 > 3: bound
    expect(await totalOf(capped, root, { visibility: PUBLIC })).toEqual({ total: -1, walks: 0, projects: 2 }); // 4 > 3
    // An administrator's bound is the count: 2 ≤ 3 is the total, without a walk. So is a signed-in user's for a
    // visibility every signed-in user reads.
    expect(await totalOf(capped, root, { visibility: INTERNAL })).toEqual({ total: 2, walks: 0, projects: 2 });
    expect(await totalOf(capped, bob, { visibility: INTERNAL })).toEqual({ total: 2, walks: 0, projects: 2 });
    expect(await totalOf(capped, alice, {})).toEqual({ total: -1, walks: 0, projects: 2 }); // public + internal 6 > 3
    // Private projects are not readable by every signed-in user: no bound, the walk counts what the caller may see.
    expect(await totalOf(capped, alice, { visibility: PRIVATE })).toEqual({ total: 2, walks: 1, projects: 2 });
    expect(await totalOf(capped, bob, { visibility: PRIVATE })).toEqual({ total: 0, walks: 1, projects: 0 });
    // External users and anonymous callers are bound by public projects only.
    expect(await totalOf(capped, ext, {})).toEqual({ total: -1, walks: 0, projects: 2 });
    expect(await totalOf(capped, anon, {})).toEqual({ total: -1, walks: 0, projects: 2 });
    expect(await totalOf(capped, ext, { visibility: INTERNAL })).toEqual({ total: 0, walks: 1, projects: 0 });
    // A filter the counters know nothing of: the walk, as before.
    expect(await totalOf(capped, root, { membership: true })).toMatchObject({ walks: 1 });
    expect(await totalOf(capped, root, { search: 'pub' })).toMatchObject({ total: -1 });
    expect(await totalOf(capped, root, { topics: ['none', 'other'] })).toEqual({ total: 0, walks: 1, projects: 0 });
    // One topic has counts of its own (the test below): an administrator's count is read, not walked.
    expect(await totalOf(capped, root, { topics: ['none'] })).toEqual({ total: 0, walks: 0, projects: 0 });
    // Archived: one of the four public projects.
    await pool.query(`UPDATE projects SET archived = true WHERE name = 'pub 3'`);
    expect(await totalOf(capped, root, { visibility: PUBLIC, archived: false })).toEqual({ total: 3, walks: 0, projects: 2 });
    expect(await totalOf(capped, root, { visibility: PUBLIC, archived: true })).toEqual({ total: 1, walks: 0, projects: 1 });
    expect(await totalOf(capped, root, { visibility: PUBLIC })).toEqual({ total: -1, walks: 0, projects: 2 });
    expect(await totalOf(capped, anon, { archived: true })).toEqual({ total: 1, walks: 0, projects: 1 });
    // Without the cap in play, every total is the exact count; a signed-in user's is the bound plus their own private
    // projects, counted alone (the walk of `visibility=private`, which only ever meets the caller's).
    expect(await totalOf(exact, root, {})).toMatchObject({ total: 8, walks: 0 });
    expect(await totalOf(exact, alice, {})).toMatchObject({ total: 8, walks: 1 }); // her private ones too
    expect(await totalOf(exact, bob, {})).toMatchObject({ total: 6, walks: 1 });
    expect(await totalOf(exact, alice, { archived: false })).toMatchObject({ total: 7, walks: 1 });
    expect(await totalOf(exact, anon, {})).toMatchObject({ total: 4, walks: 0 });
    expect(await totalOf(exact, alice, { visibility: PUBLIC })).toMatchObject({ total: 4, walks: 0 });
    // A project pending deletion is in neither the listing nor the counters; a page past the end reads no rows.
    await pool.query(`UPDATE projects SET pending_delete = true WHERE name = 'pub 1'`);
    expect(await totalOf(exact, root, {})).toMatchObject({ total: 7, walks: 0 });
    expect(await totalOf(exact, anon, { visibility: PUBLIC, page: 9 })).toEqual({ total: 3, walks: 0, projects: 0 });
    await pool.query(`UPDATE projects SET pending_delete = false WHERE name = 'pub 1'`);
  });

  it('reads a bound that stayed within the cap again only after 10 s, walking meanwhile, and totals stay exact', async () => {
    // An external user's unarchived listing: public projects (3 unarchived), within the cap of 3, plus any of the
    // caller's own, so not the count itself. A key no earlier test read.
    const sent = async (r: Partial<projectsV1.ListProjectsRequest>) => {
      const { total, bounds, walks } = await probe(capped, ext, r);
      return { total, bounds, walks };
    };
    const live = { archived: false };
    expect(await sent(live)).toEqual({ total: 3, bounds: 1, walks: 1 });
    expect(await sent(live)).toEqual({ total: 3, bounds: 0, walks: 1 }); // within the cap a moment ago: straight to the walk
    for (const n of [4, 5]) await make(bob, `pub ${n}`, PUBLIC);
    expect(await sent(live)).toEqual({ total: -1, bounds: 0, walks: 1 }); // past the cap now: the walk says so
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 10_001);
    try {
      expect(await sent(live)).toEqual({ total: -1, bounds: 1, walks: 0 }); // read again: 5 > 3, no walk
      expect(await sent(live)).toEqual({ total: -1, bounds: 1, walks: 0 }); // a bound past the cap is read every time
    } finally {
      clock.mockRestore();
    }
  });

  it('counts a listing of the caller\'s projects alone from their sources: each project once, none pending deletion or expired', async () => {
    const carol = user(5, 'carol');
    const group = 60;
    await upsertNamespace(pool, { id: 50, name: 'carol', path: 'carol', kind: 'user', full_path: 'carol', parent_id: null, owner_id: 5, owner_username: 'carol', owner_name: 'carol', owner_state: 'active', version: 1 });
    await upsertNamespace(pool, { id: group, name: 'team', path: 'team', kind: 'group', full_path: 'team', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 });
    identity.getUserGroupAccess.mockImplementation((async (r: { userId: number }) => ({ groups: r.userId === 5 ? [{ groupId: group, accessLevel: 30 }] : [] })) as never);
    const add = async (name: string, namespaceId: number, o: { member?: 'yes' | 'expired'; link?: 'yes' | 'expired'; pending?: boolean } = {}) => {
      const { rows: [p] } = await pool.query<{ id: string }>(
        `INSERT INTO projects (namespace_id, name, path, visibility, creator_id, pending_delete) VALUES ($1, $2, $2, 'private', 3, $3) RETURNING id`,
        [namespaceId, name, o.pending ?? false],
      );
      if (o.member) {
        await pool.query(`INSERT INTO project_members (project_id, user_id, access_level, expires_at) VALUES ($1, 5, 30, $2)`, [p!.id, o.member === 'expired' ? '2020-01-01' : null]);
      }
      if (o.link) {
        await pool.query(`INSERT INTO project_group_links (project_id, group_id, group_access, expires_at) VALUES ($1, $2, 30, $3)`, [p!.id, group, o.link === 'expired' ? '2020-01-01' : null]);
      }
    };
    try {
      await add('carol-own-and-member', 50, { member: 'yes' }); // her namespace and a membership: once
      await add('team-and-member', group, { member: 'yes' }); // her group and a membership: once
      await add('team-pending', group, { pending: true });
      await add('shared-with-team', 30, { link: 'yes', member: 'yes' }); // a share and a membership: once
      await add('share-expired', 30, { link: 'expired' });
      await add('member-expired', 30, { member: 'expired' });
      await add('member-pending', 30, { member: 'yes', pending: true });
      await add('member-only', 30, { member: 'yes' });
      const { rows: [walked] } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM projects WHERE NOT pending_delete AND name IN ('carol-own-and-member', 'team-and-member', 'shared-with-team', 'member-only')`);
      expect(walked!.n).toBe(4);
      const spy = jest.spyOn(pool, 'query');
      const mine = await exact.listProjects(list({ membership: true, perPage: 100 }), ctx(carol));
      const sent = spy.mock.calls.map(([q]) => (typeof q === 'string' ? q : (q as { text: string }).text ?? ''));
      spy.mockRestore();
      expect({ total: Number(mine.total), names: mine.projects.map((p) => p.name).sort() })
        .toEqual({ total: 4, names: ['carol-own-and-member', 'member-only', 'shared-with-team', 'team-and-member'] });
      expect(sent.filter((q) => q.includes('SELECT DISTINCT c.id'))).toHaveLength(1); // counted from the sources
      expect(Number((await capped.listProjects(list({ membership: true }), ctx(carol))).total)).toBe(-1); // 4 > 3
      // Filtered further, the listing is counted through the projects, as before, and agrees.
      await pool.query(`UPDATE projects SET archived = true WHERE name = 'member-only'`);
      expect(Number((await exact.listProjects(list({ membership: true, archived: false }), ctx(carol))).total)).toBe(3);
      expect(Number((await exact.listProjects(list({ membership: true }), ctx(carol))).total)).toBe(4);
    } finally {
      identity.getUserGroupAccess.mockImplementation((async () => ({ groups: [] })) as never);
    }
  });

  it('counts each topic as the listing matches it (lower-cased, once a project) through every kind of write', async () => {
    const setTopics = (name: string, topics: string[]) => pool.query(`UPDATE projects SET topics = $2 WHERE name = $1`, [name, topics]);
    await setTopics('pub 1', ['Ops', 'ops', 'web']); // one project, counted once for "ops"
    await setTopics('int 1', ['OPS']);
    await setTopics('priv 1', ['ops']);
    await setTopics('bob pub', ['web']);
    await expectTopicsExact();
    const xmins = async () => (await pool.query<{ x: string }>(`SELECT string_agg(xmin::text, ',' ORDER BY topic, visibility, archived, slot) AS x FROM project_topic_listing_counts`)).rows[0]!.x;
    const untouched = await xmins();
    await setTopics('int 1', ['Ops']); // a change of case only: no counter row rewritten
    await pool.query(`UPDATE projects SET description = 'edited', star_count = star_count + 1`);
    expect(await xmins()).toBe(untouched);
    await expectTopicsExact();
    await pool.query(`UPDATE projects SET visibility = 'private' WHERE name = 'int 1'`);
    await pool.query(`UPDATE projects SET archived = true WHERE name = 'pub 1'`);
    await pool.query(`UPDATE projects SET pending_delete = true WHERE name = 'bob pub'`);
    await expectTopicsExact();
    await pool.query(`UPDATE projects SET visibility = 'internal', topics = '{ops,db}' WHERE name = 'int 1'`); // both at once
    await pool.query(`UPDATE projects SET archived = false WHERE name = 'pub 1'`);
    await pool.query(`UPDATE projects SET pending_delete = false WHERE name = 'bob pub'`);
    await expectTopicsExact();
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO projects (namespace_id, name, path, visibility, creator_id, topics)
         SELECT 30, 'tbulk ' || g, 'tbulk-' || g, (ARRAY['public', 'internal', 'private'])[1 + g % 3], 3, ARRAY['t' || (g % 5), 'Ops'] FROM generate_series(1, 500) g`,
      );
      await expectTopicsExact(c);
      await c.query(`DELETE FROM projects WHERE name LIKE 'tbulk %' AND id % 2 = 0`);
      await expectTopicsExact(c);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    await expectTopicsExact();

    // Totals of one topic, as every caller sees it, against the listing's own rows; none walks the readable-by-all part.
    // "ops": pub 1 (public, alice), int 1 (internal, alice), priv 1 (private, alice's). Bob is no member of priv 1.
    const readAll = async (actor: Actor, r: Partial<projectsV1.ListProjectsRequest>) =>
      (await exact.listProjects(list({ ...r, perPage: 100 }), ctx(actor))).projects.length;
    const cases: [Actor, Partial<projectsV1.ListProjectsRequest>, number, number][] = [
      [root, { topics: ['OPS'] }, 3, 0], [alice, { topics: ['ops'] }, 3, 1], [bob, { topics: ['ops'] }, 2, 1],
      [anon, { topics: ['ops'] }, 1, 0], [ext, { topics: ['ops'] }, 1, 1], [alice, { topics: ['ops'], archived: true }, 0, 1],
      [bob, { topics: ['ops'], visibility: INTERNAL }, 1, 0], [alice, { topics: ['web'] }, 2, 1], [alice, { topics: ['ops', 'web'] }, 1, 1],
    ];
    for (const [actor, r, total, walks] of cases) {
      const got = await totalOf(exact, actor, r);
      expect([actor.username, r, got]).toEqual([actor.username, r, { total, walks, projects: Math.min(total, 2) }]);
      expect(await readAll(actor, r)).toBe(total);
    }
    // Past the cap (3) on the bound alone: "more than the cap" without a walk, for a signed-in user too.
    await pool.query(`UPDATE projects SET topics = '{many}' WHERE visibility IN ('public', 'internal') AND NOT pending_delete`);
    expect(await totalOf(capped, bob, { topics: ['many'] })).toEqual({ total: -1, walks: 0, projects: 2 });
    expect(await totalOf(capped, bob, { topics: ['many', 'other'] })).toEqual({ total: 0, walks: 1, projects: 0 });

    async function expectTopicsExact(db: { query: Pool['query'] } = pool) {
      const counters = await db.query<{ topic: string; visibility: string; archived: boolean; n: string }>(
        `SELECT topic, visibility, archived, sum(n)::text AS n FROM project_topic_listing_counts GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`,
      );
      const truth = await db.query<{ topic: string; visibility: string; archived: boolean; n: string }>(
        `SELECT t.topic, p.visibility, p.archived, count(*)::text AS n
         FROM projects p CROSS JOIN LATERAL (SELECT DISTINCT lower(x) AS topic FROM unnest(p.topics) x) t
         WHERE NOT p.pending_delete GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      );
      expect(counters.rows).toEqual(truth.rows);
      expect(truth.rows.length).toBeGreaterThan(0);
    }
  });

  it('is emptied by TRUNCATE, as the projects are', async () => {
    await pool.query('TRUNCATE projects CASCADE');
    expect((await countsAndTruth()).counters).toEqual([]);
    expect((await pool.query(`SELECT * FROM project_topic_listing_counts`)).rows).toEqual([]);
    await make(alice, 'after truncate', PUBLIC);
    await expectExact();
  });
});
