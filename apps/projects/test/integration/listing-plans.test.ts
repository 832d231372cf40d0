import { createPool, type Pool, type QueryConfig } from '@glp/db';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { parseSearch, plansAlikeForAnyValues, type ListFilter } from '../../src/domain/list-filter';
import { migrateProjects } from '../../src/migrations';
import { listProjectPage, listProjects } from '../../src/store/projects-store';
import type { ProjectVersionRow } from '../../src/store/project-rows';

/**
 * The plans PostgreSQL chooses for every listing filter and ordering, on 100,000 projects (issue "Projects API": every
 * filter and ordering has an index; show EXPLAIN uses it). The listing's own SQL (store `listProjects`) is run under
 * `EXPLAIN (ANALYZE, FORMAT JSON)`. The page statement may not read a large table sequentially; the count statement
 * (GitLab counts at most 10,001 rows: `LIMIT countLimit + 1`) may, when PostgreSQL prefers a sequential read that stops at
 * the limit, but no statement may read more than 4 × the counting cap from a table (a third of the projects matching reads ~3 ×) (a whole-table read at 100,000 fails).
 * The plans are printed (scenario, time per statement, the scans used with the rows each read) as the evidence behind
 * the issue's closing note; PLAN_DEBUG=<part of a scenario name> prints that scenario's full plans. A listing whose
 * plan no value changes (plansAlikeForAnyValues) is explained as the service runs it: its generic plan, prepared on a
 * connection with `plan_cache_mode = force_generic_plan` (DB_GENERIC_PLAN_POOL_MAX), so the same assertions hold for it.
 */
// node-pg's own conversion of a bound value to its text form (arrays as '{…}', dates as timestamps); untyped module.
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };
const PROJECTS = Number(process.env.PLAN_PROJECTS ?? 100_000);
const NAMESPACES = 1000;
const MEMBER = 424242;
const GROUPS = [1000001, 1000002, 1000003];
const LARGE_TABLES = new Set(['projects', 'project_members', 'stars', 'project_forks', 'project_group_links', 'project_custom_attributes']);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Heap Fetches'?: number;
  'Join Type'?: string;
  'Subplan Name'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/** Rows a scan node read from its table (returned + filtered out), over all its loops. */
const rowsRead = (n: PlanNode) => ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * (n['Actual Loops'] ?? 1);

const walk = (n: PlanNode, out: PlanNode[] = []): PlanNode[] => {
  out.push(n);
  for (const c of n.Plans ?? []) walk(c, out);
  return out;
};

/** The scans of projects in the statements choosing a listing's page. */
const projectScansOfPage = (plans: { plan: PlanNode; page: boolean }[]) =>
  plans.filter((p) => p.page).flatMap((p) => walk(p.plan)).filter((n) => n['Relation Name'] === 'projects');

describe('listing plans at 100,000 projects', () => {
  const schema = uniqueName('it_plans');
  let pool: Pool;
  /** Connections that keep generic plans, as the service's DB_GENERIC_PLAN_POOL_MAX pool. */
  let genericPool: Pool;
  const report: string[] = [];

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    // Seeding 100,000 projects with their indexes is one bulk statement per table: past the services' 30 s statement
    // timeout on a busy machine (the suite runs test files side by side), within the hook's own limit.
    pool = createPool({ url: databaseUrl, schema, max: 4, statementTimeoutMs: 170_000 });
    genericPool = createPool({ url: databaseUrl, schema, max: 1, genericPlans: true });
    await pool.query(
      `INSERT INTO namespaces (id, name, path, kind, full_path, version)
       SELECT 1000000 + g, 'team ' || g, 'team-' || g, 'group', 'team-' || g, 1 FROM generate_series(1, $1::int) g`,
      [NAMESPACES],
    );
    await pool.query(`INSERT INTO namespaces (id, name, path, kind, full_path, owner_id, owner_username, version) VALUES (5, 'member', 'member', 'user', 'member', $1, 'member', 1)`, [MEMBER]);
    await pool.query(
      `INSERT INTO projects (namespace_id, name, path, description, visibility, creator_id, topics, archived, settings, repository_storage, last_activity_at, updated_at)
       SELECT CASE WHEN g % 5000 = 0 THEN 5 ELSE 1000000 + 1 + (g % $2::int) END, 'Project ' || g || ' ' || md5(g::text), 'project-' || g,
              CASE WHEN g <= 3000 THEN 'Legacy service number ' ELSE 'Service number ' END || g || ' of the fleet', (ARRAY['private', 'internal', 'public'])[1 + g % 3], 1, ARRAY['t' || (g % 50)],
              g % 997 = 0, CASE WHEN g % 7 = 0 THEN '{"issuesAccessLevel":"disabled","mergeRequestsAccessLevel":"private"}'::jsonb ELSE '{}'::jsonb END,
              CASE WHEN g % 101 = 0 THEN 'shard-2' ELSE 'default' END,
              now() - (g || ' minutes')::interval, now() - ((g * 7) % 100000 || ' minutes')::interval
       FROM generate_series(1, $1::int) g`,
      [PROJECTS, NAMESPACES],
    );
    await pool.query(`INSERT INTO project_members (project_id, user_id, access_level, created_by) SELECT id, $1, (ARRAY[10, 20, 30, 40])[1 + id % 4], 1 FROM projects WHERE id % 200 = 0`, [MEMBER]);
    await pool.query(`INSERT INTO project_members (project_id, user_id, access_level, created_by) SELECT id, 1 + id % 5000, 30, 1 FROM projects`);
    await pool.query(`INSERT INTO stars (project_id, user_id) SELECT id, $1 FROM projects WHERE id % 100 = 0`, [MEMBER]);
    await pool.query(`INSERT INTO stars (project_id, user_id) SELECT id, 1 + id % 3000 FROM projects`);
    await pool.query(`UPDATE projects SET star_count = 1 + (id % 100 = 0)::int`);
    await pool.query(`INSERT INTO project_forks (project_id, forked_from_project_id) SELECT id, 1 + id % 500 FROM projects WHERE id % 10 = 0 AND id > 500`);
    await pool.query(`INSERT INTO project_group_links (project_id, group_id, group_access) SELECT id, 1000000 + 1 + (id * 7) % $1::int, 30 FROM projects WHERE id % 50 = 0`, [NAMESPACES]);
    await pool.query(`INSERT INTO project_custom_attributes (project_id, key, value) SELECT id, 'tier', (ARRAY['gold', 'silver', 'bronze'])[1 + id % 3] FROM projects`);
    await pool.query(`INSERT INTO project_custom_attributes (project_id, key, value) SELECT id, 'owner', 'team-' || (id % 500) FROM projects`);
    // A few groups marked for deletion (or under one) and projects marked themselves: the `active` filter's rows.
    await pool.query('UPDATE namespaces SET self_or_ancestor_marked = true WHERE id % 97 = 0');
    await pool.query('UPDATE projects SET marked_for_deletion_on = current_date - (id % 5)::int WHERE id % 1499 = 0');
    for (const t of ['project_custom_attributes', 'namespaces', 'projects', 'project_members', 'stars', 'project_forks', 'project_group_links']) await pool.query(`VACUUM ANALYZE ${t}`);
    // Statistics from every row, not a random 30,000-row sample: with sampled statistics the planner's estimate for the
    // search count flipped between runs (a projects_pkey scan reading 43,471 rows in some CI runs), so the assertions
    // below judged the sample rather than the SQL. The estimate fragility itself is a performance item (issue #14).
    await pool.query('SET default_statistics_target = 1000; ANALYZE projects, namespaces, project_members, project_group_links');
  }, 180_000);
  afterAll(async () => {
    console.log(`plans of the listing SQL at ${PROJECTS} projects:\n${report.join('\n')}`);
    await pool?.end();
    await genericPool?.end();
    await dropSchemas(schema);
  });

  const base: ListFilter = {
    callerId: MEMBER, readScope: 'signed_in', groupAccess: GROUPS.map((namespaceId) => ({ namespaceId, level: 30 })), owned: false,
    membership: false, topics: [], searchNamespaces: false, starredBy: [], issuesAvailable: false, mergeRequestsAvailable: false,
    none: false, orderBy: 'created_at', sort: 'desc', page: 1, perPage: 20, countLimit: 10_000,
  };

  /**
   * Runs the listing's statements under EXPLAIN ANALYZE and returns their plans (`page`: the statements choosing the
   * page's ids, with an ORDER BY; the others count or collect matches). Each statement also runs for real, so that a
   * statement built from an earlier one's rows (a search's page from its matches) is the one the service would run. The
   * page's rows by id (a named statement of primary-key probes) are not planned here.
   */
  async function plansOf(f: ListFilter): Promise<{ plan: PlanNode; ms: number; page: boolean; generic: boolean }[]> {
    const plans: { plan: PlanNode; ms: number; page: boolean; generic: boolean }[] = [];
    const generic = plansAlikeForAnyValues(f);
    const explaining = {
      query: async (q: string | QueryConfig, values?: unknown[]) => {
        const { text, values: v = [], name } = typeof q === 'string' ? { text: q, values, name: undefined } : q;
        if (name === 'project_rows_by_ids') return pool.query(q);
        const top = generic ? await explainGeneric(text, v) : (await pool.query<ExplainRow>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, v)).rows[0]!['QUERY PLAN'][0]!;
        plans.push({ plan: top.Plan, ms: top['Execution Time'], page: /\bORDER BY\b/.test(text), generic });
        return pool.query(text, v);
      },
    };
    await listProjects(explaining as unknown as Pool, f);
    return plans;
  }
  type ExplainRow = { 'QUERY PLAN': { Plan: PlanNode; 'Execution Time': number }[] };

  /** The statement's generic plan, executed: prepared and run on a connection that keeps generic plans. */
  async function explainGeneric(text: string, values: unknown[]): Promise<ExplainRow['QUERY PLAN'][number]> {
    const client = await genericPool.connect();
    try {
      await client.query(`PREPARE explained AS ${text}`);
      // EXECUTE's arguments are literals (a utility statement takes no bound values), in node-pg's text form of each.
      const args = values.map((v) => (v === null || v === undefined ? 'NULL' : client.escapeLiteral(String(prepareValue(v))))).join(', ');
      const { rows } = await client.query<ExplainRow>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE explained${args ? `(${args})` : ''}`);
      return rows[0]!['QUERY PLAN'][0]!;
    } finally {
      await client.query('DEALLOCATE ALL');
      client.release();
    }
  }

  const scenarios: [string, Partial<ListFilter>][] = [
    ['default (signed in, created_at desc)', {}],
    ['anonymous (public only)', { readScope: 'public', callerId: 0, groupAccess: [] }],
    ['administrator (all)', { readScope: 'all', groupAccess: [] }],
    ['external user', { readScope: 'external' }],
    ['membership=true', { membership: true }],
    ['owned=true', { owned: true }],
    ['min_access_level=30', { membership: true, minAccessLevel: 30 }],
    ['visibility=private', { visibility: 'private' }],
    ['archived=true', { archived: true }],
    ['archived=false', { archived: false }],
    ['active=true', { activity: 'active' }],
    ['active=false', { activity: 'inactive' }],
    ['marked_for_deletion_on', { markedForDeletionOn: new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10) }],
    ['id_after', { idAfter: 90_000 }],
    ['id_before', { idBefore: 1000 }],
    ['topic=t7', { topics: ['t7'] }],
    ['search=4242 (terms)', { search: parseSearch('4242'), similarityTo: '4242' }],
    ['search=ab (exact)', { search: parseSearch('ab') }],
    ['search=team-42 search_namespaces', { search: parseSearch('team-42'), searchNamespaces: true }],
    // 3,000 matches (3%), all among the oldest projects: the id index, walked newest first, reaches them last.
    ['search=legacy (the oldest projects only)', { search: parseSearch('legacy') }],
    ['search=project (every project)', { search: parseSearch('project') }],
    ['starred=true', { starredBy: [MEMBER] }],
    ['starred_projects of a user', { starredBy: [17] }],
    ['last_activity_after', { lastActivityAfter: new Date(Date.now() - 60 * 60 * 1000) }],
    ['last_activity_before', { lastActivityBefore: new Date(Date.now() - 99_000 * 60 * 1000) }],
    ['with_issues_enabled', { issuesAvailable: true }],
    ['with_merge_requests_enabled', { mergeRequestsAvailable: true }],
    ['repository_storage=shard-2 (admin)', { readScope: 'all', groupAccess: [], repositoryStorage: 'shard-2' }],
    ['user projects (namespace)', { namespaceId: 5 }],
    ['group projects (namespace)', { namespaceId: 1000042 }],
    ['shared with a group', { sharedWithGroupId: 1000043 }],
    ['forks of a project', { forkedFromProjectId: 42 }],
    ['custom_attributes[owner]=team-7 (admin)', { readScope: 'all', groupAccess: [], customAttributes: [{ key: 'owner', value: 'team-7' }] }],
    ['custom_attributes[owner]&[tier] (admin)', { readScope: 'all', groupAccess: [], customAttributes: [{ key: 'owner', value: 'team-7' }, { key: 'tier', value: 'gold' }] }],
    ['order_by=name asc', { orderBy: 'name', sort: 'asc' }],
    ['order_by=path desc', { orderBy: 'path' }],
    ['order_by=updated_at', { orderBy: 'updated_at' }],
    ['order_by=last_activity_at asc', { orderBy: 'last_activity_at', sort: 'asc' }],
    ['order_by=star_count', { orderBy: 'star_count' }],
    ['order_by=similarity (search, membership)', { orderBy: 'similarity', search: parseSearch('project'), similarityTo: 'project', membership: true }],
    ['keyset page (id_before, no count)', { orderBy: 'id', idBefore: 50_000, countLimit: 0 }],
    ['offset page 50', { page: 50 }],
    // Generic plans (plansAlikeForAnyValues): archived projects are 100 of 100,000 (g % 997), and the plan made for
    // `p.archived` reads them through their partial index and sorts them. A generic plan for a bound `p.archived = $n`
    // is made for either value: on a table like this one it walked the ordering index past 19,920 unarchived projects
    // for the first page (3.4 ms against 0.18 ms; bench/README.md, "Listings planned once").
    ['administrator, archived=true, order_by=last_activity_at', { readScope: 'all', groupAccess: [], archived: true, orderBy: 'last_activity_at' }],
    ['administrator, visibility=internal, archived=false, page 25', { readScope: 'all', groupAccess: [], visibility: 'internal', archived: false, orderBy: 'last_activity_at', page: 25 }],
    ['anonymous, archived=true', { readScope: 'public', callerId: 0, groupAccess: [], archived: true }],
    ['signed in, visibility=internal, order_by=updated_at', { visibility: 'internal', orderBy: 'updated_at' }],
  ];

  it.each(scenarios)('%s: the page reads by index, the count stays bounded', async (name, over) => {
    const plans = await plansOf({ ...base, ...over });
    const nodes = plans.flatMap((p) => walk(p.plan));
    const scans = nodes.filter((n) => n['Relation Name'] && LARGE_TABLES.has(n['Relation Name']))
      .filter((n) => n['Relation Name'] === 'projects' || n['Node Type'] !== 'Index Scan')
      .map((n) => `${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ` on ${n['Relation Name']}`} (${rowsRead(n)})`);
    report.push(`  ${name.padEnd(42)} ${plans.map((p) => `${p.ms.toFixed(1)} ms`).join(' + ').padEnd(18)} ${[...new Set(scans)].join(', ')}${plans.some((p) => p.generic) ? ' (generic plan)' : ''}`);
    if (process.env.PLAN_DEBUG && name.includes(process.env.PLAN_DEBUG)) console.log(JSON.stringify(plans, null, 1));
    const large = (n: PlanNode) => LARGE_TABLES.has(n['Relation Name'] ?? '');
    const pages = plans.filter((p) => p.page);
    // One page statement; none when a search matched nothing (the matches decide the page).
    expect(pages.length).toBeLessThanOrEqual(1);
    if (!over.search) expect(pages).toHaveLength(1);
    expect(pages.flatMap((p) => walk(p.plan)).filter((n) => n['Node Type'] === 'Seq Scan' && large(n)).map((n) => n['Relation Name'])).toEqual([]);
    const heavy = plans.flatMap((c) => walk(c.plan)).filter((n) => large(n) && rowsRead(n) > 4 * (base.countLimit + 1));
    expect(heavy.map((n) => `${n['Node Type']} ${n['Relation Name']}: ${rowsRead(n)} rows`)).toEqual([]);
  });

  // A signed-in or external user's listing that is not driven from their side tests their memberships as a hashed
  // SubPlan (their project ids read once into a hash table), not by joining project_members: the join planned ~0.65 ms
  // longer for every such listing (bench/README.md). Listings driven from their side join them: starred keeps the
  // joined membership row, membership=true is its own semi-join of the caller's projects (and has no read rule).
  it.each<[string, Partial<ListFilter>, boolean]>([
    ['signed in, default', {}, false],
    ['signed in, order_by=last_activity_at, page 25', { orderBy: 'last_activity_at', page: 25 }, false],
    ['external user', { readScope: 'external' }, false],
    ['starred=true', { starredBy: [MEMBER] }, true],
    ['membership=true', { membership: true }, true],
  ])('%s: the memberships are a hashed SubPlan, not a join (unless driven from them)', async (_name, over, joined) => {
    const [page] = (await plansOf({ ...base, ...over })).filter((p) => p.page);
    const nodes = walk(page!.plan);
    expect(nodes.some((n) => n['Join Type'] !== undefined && walk(n).some((c) => c['Relation Name'] === 'project_members'))).toBe(joined);
    // The filter names it `(hashed SubPlan n)`; the subplan itself reads project_members.
    const hashed = nodes.flatMap((n) => [...(n.Filter ?? '').matchAll(/hashed (SubPlan \d+)/g)].map((m) => m[1]));
    const reads = (name: string) => nodes.some((n) => n['Subplan Name'] === name && walk(n).some((c) => c['Relation Name'] === 'project_members'));
    if (!joined) expect(hashed.some(reads)).toBe(true);
  });

  // Migration 0018: a listing filtered by visibility alone (administrator, anonymous) walks its ordering index past
  // OFFSET entries testing visibility, which the index carries, so no walked entry is a heap fetch (vacuumed above).
  it.each<[string, Partial<ListFilter>]>([
    ['administrator, visibility=internal, order_by=last_activity_at, page 25', { readScope: 'all', groupAccess: [], visibility: 'internal', orderBy: 'last_activity_at', page: 25 }],
    ['administrator, order_by=updated_at, page 25', { readScope: 'all', groupAccess: [], orderBy: 'updated_at', page: 25 }],
    ['anonymous, order_by=star_count asc, page 25', { readScope: 'public', callerId: 0, groupAccess: [], orderBy: 'star_count', sort: 'asc', page: 25 }],
  ])('%s: the page\'s ids come from an index-only scan', async (_name, over) => {
    const plans = await plansOf({ ...base, ...over });
    const pageScans = projectScansOfPage(plans);
    expect(pageScans.map((n) => [n['Node Type'], n['Heap Fetches']])).toEqual([['Index Only Scan', 0]]);
    expect(pageScans[0]?.['Actual Rows']).toBeGreaterThanOrEqual(500);
  });

  // A keyset page (ordered by id, bounded by id, not counted) runs on its generic plan (plansAlikeForAnyValues): one plan
  // for every bound, a walk of an id index from the bound that the LIMIT stops after the page, wherever the bound lies.
  it.each<[string, Partial<ListFilter>]>([
    ['administrator, id_after near the first id', { readScope: 'all', groupAccess: [], orderBy: 'id', sort: 'asc', idAfter: 10, countLimit: 0 }],
    ['administrator, id_after midway', { readScope: 'all', groupAccess: [], orderBy: 'id', sort: 'asc', idAfter: 50_000, countLimit: 0 }],
    ['administrator, id_after near the last id', { readScope: 'all', groupAccess: [], orderBy: 'id', sort: 'asc', idAfter: PROJECTS - 100, countLimit: 0 }],
    ['anonymous, id_before, newest first', { readScope: 'public', callerId: 0, groupAccess: [], orderBy: 'id', sort: 'desc', idBefore: 50_000, countLimit: 0 }],
  ])('keyset page, %s: its generic plan reads the page alone', async (_name, over) => {
    const plans = await plansOf({ ...base, ...over });
    expect(plans.map((p) => [p.page, p.generic])).toEqual([[true, true]]);
    const scans = walk(plans[0]!.plan).filter((n) => n['Relation Name'] === 'projects');
    expect(scans.map((n) => [n['Node Type'], rowsRead(n) <= 20])).toEqual([['Index Only Scan', true]]);
  });

  // A listing planned once reads its page's versions (what kept encodings are keyed by) in its page's statement, the
  // join written inline rather than through listing_versions (store VERSIONS_OF): its generic plan probes projects,
  // namespaces and the caller's membership by key for the page's ids alone, and it reads what the function reads.
  it.each<[string, Partial<ListFilter>]>([
    ['administrator, visibility=internal, order_by=last_activity_at, page 25', { readScope: 'all', groupAccess: [], visibility: 'internal', orderBy: 'last_activity_at', page: 25 }],
    ['anonymous, default, page 25', { readScope: 'public', callerId: 0, groupAccess: [], page: 25 }],
    ['administrator, keyset page', { readScope: 'all', groupAccess: [], orderBy: 'id', sort: 'asc', idAfter: 50_000, countLimit: 0 }],
  ])('%s: planned once, the page\'s versions are read inline, by key', async (_name, over) => {
    const f = { ...base, ...over };
    expect(plansAlikeForAnyValues(f)).toBe(true);
    const plans: { plan: PlanNode; text: string }[] = [];
    const explaining = {
      query: async (q: QueryConfig) => {
        plans.push({ plan: (await explainGeneric(q.text, q.values ?? [])).Plan, text: q.text });
        return genericPool.query(q);
      },
    };
    const byVersions = async (v: ProjectVersionRow[]) => v;
    const inline = await listProjectPage(explaining as unknown as Pool, f, { byVersions }, { plannedOnce: true });
    const throughFunction = await listProjectPage(pool, f, { byVersions }, { plannedOnce: false });
    expect(inline.rows).toHaveLength(20);
    expect(inline).toEqual(throughFunction);
    expect(plans).toHaveLength(1);
    expect(plans[0]!.text).not.toContain('listing_versions');
    const probes = walk(plans[0]!.plan).filter((n) => ['namespaces', 'project_members'].includes(n['Relation Name'] ?? '') || (n['Relation Name'] === 'projects' && n['Node Type'] === 'Index Scan'));
    expect(probes.map((n) => [n['Relation Name'], n['Node Type'], rowsRead(n) <= 20])).toEqual(
      expect.arrayContaining([['projects', 'Index Scan', true], ['namespaces', 'Index Scan', true]]),
    );
    expect(probes.every((n) => n['Node Type'] === 'Index Scan' && rowsRead(n) <= 20)).toBe(true);
  });

  // Migration 0023: a listing of one visibility walks that visibility's own partial index, so page 25 of 20 reads the
  // 480 entries it skips and the 20 it lists, none of another visibility's (a third of each here: 1,500 through the
  // indexes of 0018, which hold every visibility).
  it.each<[string, Partial<ListFilter>, string]>([
    ['administrator, visibility=internal, order_by=last_activity_at, page 25', { readScope: 'all', groupAccess: [], visibility: 'internal', orderBy: 'last_activity_at', page: 25 }, 'projects_internal_last_activity_at_idx'],
    ['signed in, visibility=internal, order_by=updated_at, page 25', { visibility: 'internal', orderBy: 'updated_at', page: 25 }, 'projects_internal_updated_at_idx'],
    ['anonymous, order_by=star_count asc, page 25', { readScope: 'public', callerId: 0, groupAccess: [], orderBy: 'star_count', sort: 'asc', page: 25 }, 'projects_public_star_count_idx'],
    ['anonymous, default, page 25', { readScope: 'public', callerId: 0, groupAccess: [], page: 25 }, 'projects_public_id_idx'],
  ])('%s: the page reads only its visibility\'s entries', async (_name, over, index) => {
    const plans = await plansOf({ ...base, ...over });
    const pageScans = projectScansOfPage(plans);
    expect(pageScans.map((n) => [n['Node Type'], n['Index Name'], rowsRead(n), n['Heap Fetches']])).toEqual([['Index Only Scan', index, 500, 0]]);
  });
});
