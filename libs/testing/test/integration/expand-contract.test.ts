// Rolling upgrades (docs/architecture.md, "Upgrades"): the previous release keeps serving while this release's regular
// migrations run and its pods replace the old ones, so a regular migration may only expand what the previous release
// reads; dropping, renaming or retyping belongs in a post-deployment migration (migrations/post/), applied after the
// rollout. This checks every service's migrations against the previous release (deploy/upgrade/previous-release).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { runMigrations, runServiceMigrations, type MigrationSet } from '@glp/db';
import { EVENTS_MIGRATIONS_TABLE, eventsMigrationSet } from '@glp/events';
import { dropSchemas, infraFromEnv, REPO_ROOT, uniqueName } from '../../src';
import { extractAt, filesAt, previousRelease } from '../../src/upgrade/previous-release';
import { schemaBreaks, snapshotSchema, type SchemaSnapshot } from '../../src/upgrade/schema-compat';

const EVENTS_DIR = 'libs/events/migrations';
const SERVICES = readdirSync(path.join(REPO_ROOT, 'apps')).filter((a) => existsSync(path.join(REPO_ROOT, 'apps', a, 'migrations'))).sort();
const sqlFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name).sort() : []);

let url: string;
let prev: string;
let prevTree: string;
const schemas: string[] = [];

async function snapshot(schema: string): Promise<SchemaSnapshot> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await snapshotSchema(client, schema);
  } finally {
    await client.end();
  }
}

function newSchema(name: string): string {
  const s = uniqueName(`ec_${name.replace(/-/g, '_')}`);
  schemas.push(s);
  return s;
}

beforeAll(async () => {
  url = infraFromEnv().databaseUrl;
  prev = await previousRelease();
  prevTree = mkdtempSync(path.join(os.tmpdir(), 'glp-prev-release-'));
  // One path at a time: a service new in this release has no migrations at the previous one.
  for (const p of [...SERVICES.map((s) => `apps/${s}/migrations`), EVENTS_DIR]) {
    if ((await filesAt(prev, p)).size) await extractAt(prev, [p], prevTree);
  }
});

afterAll(async () => {
  await dropSchemas(...schemas);
  rmSync(prevTree, { recursive: true, force: true });
});

describe('migrations of the previous release are kept as they were', () => {
  it.each([...SERVICES.flatMap((s) => [`apps/${s}/migrations`, `apps/${s}/migrations/post`]), EVENTS_DIR])('%s: none changed, removed or renamed', async (dir) => {
    const then = await filesAt(prev, dir);
    const changed = [...then].filter(([name, content]) => {
      const file = path.join(REPO_ROOT, dir, name);
      return !existsSync(file) || readFileSync(file, 'utf8') !== content;
    }).map(([name]) => name);
    expect(changed).toEqual([]);
  });
});

describe("this release's regular migrations keep the previous release's schema working", () => {
  it.each(SERVICES)('%s', async (service) => {
    const prevDir = path.join(prevTree, 'apps', service, 'migrations');
    if (!existsSync(prevDir)) return; // a service new in this release: nothing of the previous release to keep
    const schema = newSchema(service);
    // The schema as the previous release left it once rolled out: its regular and post-deployment migrations.
    const prevSets: MigrationSet[] = [
      { dir: prevDir, table: 'pgmigrations' },
      { dir: path.join(prevTree, EVENTS_DIR), table: EVENTS_MIGRATIONS_TABLE },
      ...(sqlFiles(path.join(prevDir, 'post')).length ? [{ dir: path.join(prevDir, 'post'), table: 'pgmigrations_post' }] : []),
    ];
    await runMigrations({ url, schema, sets: prevSets });
    const before = await snapshot(schema);
    expect(before.tables.size).toBeGreaterThan(0);
    // This release's pre-rollout step (the chart's pre-upgrade Job, ROLE=migrate).
    await runServiceMigrations({ url, schema, dir: path.join(REPO_ROOT, 'apps', service, 'migrations'), shared: [eventsMigrationSet()], phase: 'regular' });
    expect(schemaBreaks(before, await snapshot(schema))).toEqual([]);
  });
});

describe('the check itself', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'glp-ec-'));
    mkdirSync(path.join(dir, 'post'));
    writeFileSync(path.join(dir, '0001_init.sql'), '-- Up Migration\nCREATE TABLE widgets (id bigint PRIMARY KEY, name text NOT NULL, colour text);\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a regular migration that drops a column the previous release reads; the same step is allowed after the rollout', async () => {
    const schema = newSchema('self_check');
    await runServiceMigrations({ url, schema, dir, shared: [], phase: 'all' });
    const before = await snapshot(schema);

    writeFileSync(path.join(dir, 'post', '0001_drop_colour.sql'), '-- Up Migration\nALTER TABLE widgets DROP COLUMN colour;\n');
    await runServiceMigrations({ url, schema, dir, shared: [], phase: 'regular' }); // pre-rollout: the post step waits
    expect(schemaBreaks(before, await snapshot(schema))).toEqual([]);
    await runServiceMigrations({ url, schema, dir, shared: [], phase: 'all' }); // post-rollout
    expect(schemaBreaks(before, await snapshot(schema))).toEqual(['column widgets.colour is dropped or renamed']);
  });

  it('reports a regular migration that renames a column', async () => {
    const schema = newSchema('self_check');
    rmSync(path.join(dir, 'post', '0001_drop_colour.sql'), { force: true });
    await runServiceMigrations({ url, schema, dir, shared: [], phase: 'all' });
    const before = await snapshot(schema);
    writeFileSync(path.join(dir, '0002_rename.sql'), '-- Up Migration\nALTER TABLE widgets RENAME COLUMN name TO title;\n');
    await runServiceMigrations({ url, schema, dir, shared: [], phase: 'regular' });
    expect(schemaBreaks(before, await snapshot(schema))).toEqual(['column widgets.name is dropped or renamed', 'column widgets.title is added NOT NULL without a default']);
  });
});
