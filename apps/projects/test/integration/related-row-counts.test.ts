import { createPool, type Pool } from '@glp/db';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { migrateProjects } from '../../src/migrations';
import { findProjectById } from '../../src/store/projects-store';

/**
 * The counts of each project's group links, fork source and import source (migration 0019), which decide whether a
 * project's read probes those tables at all: exact after every kind of write (inserts, deletes, bulk deletes, cascades
 * from a deleted project or source, a row moved to another project), and a project read shows what they count.
 */
describe('related row counts', () => {
  const schema = uniqueName('it_related_counts');
  let pool: Pool;
  const ids: number[] = [];

  /** Each project's three counts, next to what counting the tables says. */
  const countsAndTruth = async () => {
    const { rows } = await pool.query<{ id: number; counted: string; truth: string }>(
      `SELECT p.id, concat_ws('/', p.group_link_count, p.fork_source_count, p.import_source_count) AS counted,
              concat_ws('/', (SELECT count(*) FROM project_group_links l WHERE l.project_id = p.id),
                             (SELECT count(*) FROM project_forks f WHERE f.project_id = p.id),
                             (SELECT count(*) FROM project_import_sources i WHERE i.project_id = p.id)) AS truth
       FROM projects p ORDER BY p.id`,
    );
    return rows;
  };
  const expectExact = async () => {
    const rows = await countsAndTruth();
    expect(rows.filter((r) => r.counted !== r.truth)).toEqual([]);
    return rows;
  };
  const counted = async (id: number) => (await countsAndTruth()).find((r) => r.id === id)?.counted;
  const link = (projectId: number, groupId: number) =>
    pool.query('INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, $2, 30)', [projectId, groupId]);
  const fork = (projectId: number, sourceId: number) => pool.query('INSERT INTO project_forks (project_id, forked_from_project_id) VALUES ($1, $2)', [projectId, sourceId]);
  const importSource = (projectId: number) =>
    pool.query(`INSERT INTO project_import_sources (project_id, url_sealed, url_masked) VALUES ($1, 'sealed', 'https://*****@example.com/a.git')`, [projectId]);

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    await pool.query(`INSERT INTO namespaces (id, name, path, kind, full_path, version) SELECT g, 'group ' || g, 'group-' || g, 'group', 'group-' || g, 1 FROM generate_series(100, 104) g`);
    const { rows } = await pool.query<{ id: number }>(
      `INSERT INTO projects (namespace_id, name, path, visibility, creator_id) SELECT 100, 'p' || g, 'p' || g, 'public', 1 FROM generate_series(1, 6) g RETURNING id`,
    );
    ids.push(...rows.map((r) => Number(r.id)).sort((a, b) => a - b));
  });
  afterAll(async () => {
    await pool?.end();
    await dropSchemas(schema);
  });

  it('start at zero, and a read of a project without any shows none', async () => {
    expect((await expectExact()).map((r) => r.counted)).toEqual(Array(6).fill('0/0/0'));
    const row = await findProjectById(pool, ids[0]!, 0);
    expect([row?.share_links, row?.fork_source, row?.import_source]).toEqual([[], null, null]);
  });

  it('follow inserts, and a read shows the links, the fork source and the import source', async () => {
    const [a, b, c] = ids as [number, number, number];
    await link(a, 101);
    await link(a, 102);
    await pool.query('INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, 101, 20), ($2, 102, 20)', [b, c]);
    await fork(b, a);
    await importSource(b);
    await expectExact();
    expect([await counted(a), await counted(b), await counted(c)]).toEqual(['2/0/0', '1/1/1', '1/0/0']);
    const read = await findProjectById(pool, b, 0);
    expect(read?.share_links.map((l) => [l.group_id, l.group_name])).toEqual([[101, 'group 101']]);
    expect(read?.fork_source).toMatchObject({ id: a, share_links: [{ group_id: 101, group_access: 30 }, { group_id: 102, group_access: 30 }] });
    expect(read?.import_source).toMatchObject({ url_masked: 'https://*****@example.com/a.git' });
  });

  it('an upsert that conflicts and changes nothing counts nothing', async () => {
    const [a] = ids as [number];
    await pool.query('INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, 101, 40) ON CONFLICT (project_id, group_id) DO NOTHING', [a]);
    await pool.query(`INSERT INTO project_import_sources (project_id, url_sealed, url_masked) VALUES ($1, 'x', 'y')
                      ON CONFLICT (project_id) DO UPDATE SET url_masked = EXCLUDED.url_masked`, [ids[1]]);
    await expectExact();
    expect(await counted(a)).toBe('2/0/0');
  });

  it('follow deletes: one link, every link of a group, a row moved to another project', async () => {
    const [a, b, c, d] = ids as [number, number, number, number];
    await pool.query('DELETE FROM project_group_links WHERE project_id = $1 AND group_id = 102', [a]);
    await pool.query('DELETE FROM project_group_links WHERE group_id = 101');
    await link(c, 103);
    await pool.query('UPDATE project_group_links SET project_id = $1 WHERE project_id = $2 AND group_id = 103', [d, c]);
    await expectExact();
    expect([await counted(a), await counted(b), await counted(c), await counted(d)]).toEqual(['0/0/0', '0/1/1', '1/0/0', '1/0/0']);
    expect((await findProjectById(pool, a, 0))?.share_links).toEqual([]);
  });

  it('follow cascades: a deleted fork source unlinks its forks, a deleted project takes its rows along', async () => {
    const [a, b, , d, e, f] = ids as [number, number, number, number, number, number];
    await fork(e, d);
    await fork(f, d);
    await link(d, 104);
    await importSource(d);
    await pool.query('DELETE FROM projects WHERE id = $1', [d]);
    const rows = await expectExact();
    expect(rows.find((r) => r.id === d)).toBeUndefined();
    expect([await counted(e), await counted(f)]).toEqual(['0/0/0', '0/0/0']);
    await pool.query('DELETE FROM projects WHERE id = $1', [a]);
    await expectExact();
    expect(await counted(b)).toBe('0/0/1');
    expect((await findProjectById(pool, b, 0))?.fork_source).toBeNull();
  });
});
