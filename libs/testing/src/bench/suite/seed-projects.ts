import type { Client } from 'pg';
import type { RunningStack } from '../../stack';

/** First id of the seeded group namespaces, and of the seeded users that ask for access (clear of the API's ids). */
export const SEED_NAMESPACE_BASE = 1_000_000;
export const SEED_REQUESTER_BASE = 2_000_000;

export interface Seeded {
  projects: number;
  /** The member's projects: every 200th id. */
  memberProjectIds: number[];
  ms: number;
}

/**
 * Replaces the projects schema's projects (and everything hanging off them) with `projects` rows over `namespaces`
 * group namespaces, in one transaction of bulk statements (TRUNCATE, generate_series; no API calls), as
 * project-listings.ts seeds: ids 1..N, path `team-<1 + id % namespaces>/project-<id>`, visibility cycling
 * private/internal/public, topic `t<id % 50>`, last activity `id` minutes ago; `memberId` is a member of every 200th
 * project and has starred every 100th. Projects' secondary indexes are dropped for the load and rebuilt after it
 * (1M rows: 35 s instead of 73 s here). Then VACUUM ANALYZE so plans match a settled database (settledVacuum).
 */
export async function seedProjects(db: Client, stack: RunningStack, o: { projects: number; namespaces: number; memberId: number }): Promise<Seeded> {
  const t0 = Date.now();
  await db.query(`SET search_path TO ${stack.schemas.projects}, public`);
  // The services keep working on the previous size (a consumer, a relay, the deletion purge): TRUNCATE … CASCADE locks
  // table after table and can deadlock with one of them (40P01) or wait behind it. The whole load is retried.
  for (let attempt = 1; ; attempt++) {
    try {
      await loadProjects(db, o);
      break;
    } catch (err) {
      await db.query('ROLLBACK').catch(() => undefined);
      const code = (err as { code?: string }).code;
      if (attempt >= 10 || (code !== '40P01' && code !== '55P03')) throw err;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
  await settledVacuum(db, ['projects', 'project_members', 'namespaces', 'stars']);
  const memberProjectIds = Array.from({ length: Math.floor(o.projects / 200) }, (_, i) => (i + 1) * 200);
  return { projects: o.projects, memberProjectIds, ms: Date.now() - t0 };
}

/**
 * VACUUM ANALYZE, repeated until VACUUM has marked (nearly) every page of the tables all-visible, as autovacuum leaves a
 * settled database. VACUUM can mark a page all-visible only when no open transaction is older than the page's rows:
 * the stack keeps working while the suite seeds (relays, consumers, the member the suite just created through the
 * API), and a transaction of theirs that began before the load committed made VACUUM leave all 3,999 pages of 100,000
 * projects unmarked. Index-only scans then read the heap for every row and PostgreSQL turns to sequential scans: the
 * offset listing's capped count went from an index-only scan (1.9 ms) to a sequential one (8.9 ms), and the listing
 * from 324 to 187 req/s at 16 connections, at random from one run to the next. A manual VACUUM also resets the
 * inserts autovacuum counts, so it would not come back to fix it.
 */
async function settledVacuum(db: Client, tables: string[]): Promise<void> {
  for (const t of tables) await db.query(`VACUUM ANALYZE ${t}`);
  for (let attempt = 1; attempt <= 50; attempt++) {
    const { rows } = await db.query<{ relname: string }>(
      `SELECT c.relname FROM pg_class c
       WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY($1::text[]) AND c.relpages > 0
         AND c.relallvisible < 0.95 * c.relpages`,
      [tables],
    );
    if (rows.length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
    for (const { relname } of rows) await db.query(`VACUUM ${relname}`);
  }
  console.warn('  (seeding: VACUUM could not mark the tables all-visible: a long transaction is open; plans may differ)');
}

async function loadProjects(db: Client, o: { projects: number; namespaces: number; memberId: number }): Promise<void> {
  await db.query('BEGIN');
  await db.query(`SET LOCAL lock_timeout = '10s'`);
  await db.query('TRUNCATE projects RESTART IDENTITY CASCADE');
  await db.query(`DELETE FROM namespaces WHERE id >= ${SEED_NAMESPACE_BASE}`);
  await db.query(
    `INSERT INTO namespaces (id, name, path, kind, full_path, version)
     SELECT ${SEED_NAMESPACE_BASE} + g, 'team ' || g, 'team-' || g, 'group', 'team-' || g, 1 FROM generate_series(1, $1::int) g`,
    [o.namespaces],
  );
  // Bulk load, then index: building each secondary index once (trigram and GIN ones above all) is several times
  // faster than maintaining them row by row. Dropped and recreated inside the transaction, from their own definitions.
  await db.query(`SET LOCAL maintenance_work_mem = '512MB'`);
  const { rows: indexes } = await db.query<{ name: string; def: string }>(
    `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
     WHERE i.schemaname = current_schema() AND i.tablename = 'projects'
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = current_schema()::regnamespace)`,
  );
  for (const ix of indexes) await db.query(`DROP INDEX ${ix.name}`);
  await db.query(
    `INSERT INTO projects (namespace_id, name, path, description, visibility, creator_id, topics, star_count, last_activity_at)
     SELECT ${SEED_NAMESPACE_BASE} + 1 + (g % $2::int), 'Project ' || g || ' ' || md5(g::text), 'project-' || g, 'Service number ' || g || ' of the fleet',
            (ARRAY['private', 'internal', 'public'])[1 + g % 3], 1, ARRAY['t' || (g % 50)], (g % 100 = 0)::int, now() - (g || ' minutes')::interval
     FROM generate_series(1, $1::int) g`,
    [o.projects, o.namespaces],
  );
  for (const ix of indexes) await db.query(ix.def);
  await db.query(
    `INSERT INTO project_members (project_id, user_id, access_level, created_by)
     SELECT g, $1, (ARRAY[10, 20, 30, 40])[1 + g % 4], 1 FROM generate_series(200, $2::int, 200) g`,
    [o.memberId, o.projects],
  );
  await db.query(`INSERT INTO stars (project_id, user_id) SELECT g, $1 FROM generate_series(100, $2::int, 100) g`, [o.memberId, o.projects]);
  await db.query('COMMIT');
}

/**
 * `count` pending access requests to `projectId` from users SEED_REQUESTER_BASE + `from` + 1 ..., with those users in
 * identity's users and in projects' user replica (approval adds them as members there). Returns the first user id.
 */
export async function seedAccessRequests(db: Client, stack: RunningStack, o: { projectId: number; from: number; count: number }): Promise<number> {
  const first = SEED_REQUESTER_BASE + o.from + 1;
  const range = `generate_series(${first}, ${first + o.count - 1}) g`;
  await db.query('BEGIN');
  await db.query(`INSERT INTO ${stack.schemas.identity}.users (id, username, name, email) SELECT g, 'req-' || g, 'Requester ' || g, 'req-' || g || '@example.com' FROM ${range} ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO ${stack.schemas.projects}.users (id, username, name, state) SELECT g, 'req-' || g, 'Requester ' || g, 'active' FROM ${range} ON CONFLICT DO NOTHING`);
  await db.query(
    `INSERT INTO ${stack.schemas.accessRequests}.access_requests (source_kind, source_id, user_id, username, name, user_state)
     SELECT 'project', $1, g, 'req-' || g, 'Requester ' || g, 'active' FROM ${range} ON CONFLICT DO NOTHING`,
    [o.projectId],
  );
  await db.query('COMMIT');
  return first;
}
