import type { ClientBase, Pool } from 'pg';

/**
 * Database invariants of a stack after a run, as named SQL queries that must return no row. The queries read every
 * schema of the stack (a test may; production code keeps to its own schema): orphans within a schema (members,
 * stars, forks, shares, redirects, custom attributes, statistics, import sources of a missing project), half-written
 * rows (deletion data set by halves, counters out of step), event-fed copies in other services' schemas (hooks, push
 * rules, repositories, access requests, the projects' namespace read model) that outlived their project, and outbox
 * rows the relay left behind. Event-fed invariants only hold once the outboxes and consumers have settled.
 *
 * Each invariant carries `violate`: statements that insert one violating row into a scratch copy of the schemas
 * (tables without constraints), so that a test proves every query can fail (see `provesInvariantsCanFail`).
 */

export interface StackSchemas {
  identity: string;
  projects: string;
  accessRequests: string;
  repoAdmin: string;
  hooks: string;
  pushRules: string;
  webhookDispatcher: string;
}

export interface Invariant {
  name: string;
  /** Rows that break the invariant (none when it holds). */
  sql(s: StackSchemas): string;
  /** Inserts one violation into (scratch) schemas `s`. */
  violate(s: StackSchemas): string[];
}

/** How old an outbox row may be once the stack has settled (the relay polls every few hundred ms). */
const OUTBOX_MAX_AGE = "5 seconds";

const orphanOf = (table: string, column = 'project_id'): Invariant => ({
  name: `${table}.${column} of a missing project`,
  sql: (s) => `SELECT t.${column} FROM ${s.projects}.${table} t WHERE NOT EXISTS (SELECT 1 FROM ${s.projects}.projects p WHERE p.id = t.${column})`,
  violate: (s) => [`INSERT INTO ${s.projects}.${table} (${column}) VALUES (-1)`],
});

const copiedFor = (name: string, schema: keyof StackSchemas, table: string, where = 'true'): Invariant => ({
  name,
  sql: (s) => `SELECT t.project_id FROM ${s[schema]}.${table} t WHERE ${where} AND NOT EXISTS (SELECT 1 FROM ${s.projects}.projects p WHERE p.id = t.project_id)`,
  violate: (s) => [`INSERT INTO ${s[schema]}.${table} (project_id) VALUES (-1)`],
});

const outboxStuck = (schema: keyof StackSchemas): Invariant => ({
  name: `${schema} outbox row older than ${OUTBOX_MAX_AGE} (relay stuck)`,
  sql: (s) => `SELECT id FROM ${s[schema]}.outbox WHERE published_at IS NULL AND created_at < now() - interval '${OUTBOX_MAX_AGE}'`,
  violate: (s) => [`INSERT INTO ${s[schema]}.outbox (id, topic, created_at) VALUES (-1, 'x', now() - interval '1 minute')`],
});

export const INVARIANTS: readonly Invariant[] = [
  {
    name: 'project without a namespace row (projects read model)',
    sql: (s) => `SELECT p.id FROM ${s.projects}.projects p WHERE NOT EXISTS (SELECT 1 FROM ${s.projects}.namespaces n WHERE n.id = p.namespace_id)`,
    violate: (s) => [`INSERT INTO ${s.projects}.projects (id, namespace_id) VALUES (-1, -1)`],
  },
  {
    name: 'project whose namespace is missing in identity',
    sql: (s) => `SELECT p.id FROM ${s.projects}.projects p WHERE NOT EXISTS (SELECT 1 FROM ${s.identity}.namespaces n WHERE n.id = p.namespace_id)`,
    violate: (s) => [`INSERT INTO ${s.projects}.projects (id, namespace_id) VALUES (-1, -1)`],
  },
  {
    name: 'projects read-model namespace missing in identity',
    sql: (s) => `SELECT n.id FROM ${s.projects}.namespaces n WHERE NOT EXISTS (SELECT 1 FROM ${s.identity}.namespaces i WHERE i.id = n.id)`,
    violate: (s) => [`INSERT INTO ${s.projects}.namespaces (id) VALUES (-1)`],
  },
  {
    name: 'personal namespace of a missing user',
    sql: (s) => `SELECT n.id FROM ${s.identity}.namespaces n WHERE n.kind = 'user' AND NOT EXISTS (SELECT 1 FROM ${s.identity}.users u WHERE u.id = n.owner_id)`,
    violate: (s) => [`INSERT INTO ${s.identity}.namespaces (id, kind, owner_id) VALUES (-1, 'user', -1)`],
  },
  orphanOf('project_members'),
  orphanOf('stars'),
  orphanOf('project_forks'),
  orphanOf('project_forks', 'forked_from_project_id'),
  orphanOf('project_group_links'),
  orphanOf('project_redirect_routes'),
  orphanOf('project_custom_attributes'),
  orphanOf('project_statistics'),
  orphanOf('project_import_sources'),
  {
    // Marking archives a project, but it may be unarchived while marked (GitLab's UnarchiveService has no such guard).
    name: 'project with half its deletion data (marked_for_deletion_on xor deleting_user_id), or pending_delete without it',
    sql: (s) => `SELECT id FROM ${s.projects}.projects
      WHERE (marked_for_deletion_on IS NULL) <> (deleting_user_id IS NULL) OR (pending_delete AND marked_for_deletion_on IS NULL)`,
    violate: (s) => [`INSERT INTO ${s.projects}.projects (id, marked_for_deletion_on, deleting_user_id, pending_delete, archived) VALUES (-1, current_date, NULL, false, true)`],
  },
  {
    name: 'projects.star_count out of step with stars',
    sql: (s) => `SELECT p.id FROM ${s.projects}.projects p WHERE p.star_count <> (SELECT count(*) FROM ${s.projects}.stars st WHERE st.project_id = p.id)`,
    violate: (s) => [`INSERT INTO ${s.projects}.projects (id, star_count) VALUES (-1, 1)`],
  },
  {
    name: 'projects.forks_count out of step with project_forks',
    sql: (s) => `SELECT p.id FROM ${s.projects}.projects p WHERE p.forks_count <> (SELECT count(*) FROM ${s.projects}.project_forks f WHERE f.forked_from_project_id = p.id)`,
    violate: (s) => [`INSERT INTO ${s.projects}.projects (id, forks_count) VALUES (-1, 2)`],
  },
  copiedFor('hook of a missing project', 'hooks', 'hooks'),
  copiedFor('push rule of a missing project', 'pushRules', 'push_rules'),
  copiedFor('repository of a missing project', 'repoAdmin', 'repositories'),
  {
    name: 'access request for a missing project or group',
    sql: (s) => `SELECT a.source_kind, a.source_id, a.user_id FROM ${s.accessRequests}.access_requests a
      WHERE (a.source_kind = 'project' AND NOT EXISTS (SELECT 1 FROM ${s.projects}.projects p WHERE p.id = a.source_id))
         OR (a.source_kind = 'group' AND NOT EXISTS (SELECT 1 FROM ${s.identity}.namespaces n WHERE n.id = a.source_id AND n.kind = 'group'))`,
    violate: (s) => [`INSERT INTO ${s.accessRequests}.access_requests (source_kind, source_id, user_id) VALUES ('project', -1, 1)`],
  },
  {
    name: 'pending access request of a user who is already a member',
    sql: (s) => `SELECT a.source_id, a.user_id FROM ${s.accessRequests}.access_requests a
      JOIN ${s.projects}.project_members m ON a.source_kind = 'project' AND m.project_id = a.source_id AND m.user_id = a.user_id
      WHERE a.state = 'pending'`,
    violate: (s) => [
      `INSERT INTO ${s.accessRequests}.access_requests (source_kind, source_id, user_id, state) VALUES ('project', -1, -2, 'pending')`,
      `INSERT INTO ${s.projects}.project_members (project_id, user_id) VALUES (-1, -2)`,
    ],
  },
  ...(['identity', 'projects', 'accessRequests', 'repoAdmin', 'hooks', 'pushRules', 'webhookDispatcher'] as const).map(outboxStuck),
];

/** The invariants that do not hold, each with up to 5 offending rows. */
export async function brokenInvariants(pool: Pool | ClientBase, schemas: StackSchemas, list: readonly Invariant[] = INVARIANTS): Promise<string[]> {
  const broken: string[] = [];
  for (const inv of list) {
    const { rows } = await pool.query(`${inv.sql(schemas)} LIMIT 5`);
    if (rows.length > 0) broken.push(`${inv.name}: ${JSON.stringify(rows)}`);
  }
  return broken;
}

/** Waits until every outbox of the stack is empty (the relays have published) and stays so for `stableMs`. */
export async function settledOutboxes(pool: Pool, schemas: StackSchemas, stableMs = 1500, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let since = Date.now();
  const count = Object.values(schemas).map((s) => `(SELECT count(*) FROM ${s}.outbox WHERE published_at IS NULL)`).join(' + ');
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(`SELECT (${count})::int AS n`);
    if (rows[0]!.n > 0) since = Date.now();
    else if (Date.now() - since >= stableMs) return;
    if (Date.now() > deadline) throw new Error(`outboxes not drained within ${timeoutMs} ms (${rows[0]!.n} rows)`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Copies the tables of `schemas` into scratch schemas `<prefix>_<n>` without data or constraints (CREATE TABLE AS
 * ... WITH NO DATA), checks every invariant holds there, then for each invariant inserts its violation in a
 * transaction, expects the query to see it, and rolls back. Returns the names of invariants that did NOT fail.
 */
export async function invariantsThatCannotFail(pool: Pool, schemas: StackSchemas, prefix: string): Promise<string[]> {
  const scratch = Object.fromEntries(Object.keys(schemas).map((k, i) => [k, `${prefix}_${i}`])) as unknown as StackSchemas;
  const client = await pool.connect();
  try {
    for (const [key, source] of Object.entries(schemas) as [keyof StackSchemas, string][]) {
      await client.query(`DROP SCHEMA IF EXISTS ${scratch[key]} CASCADE; CREATE SCHEMA ${scratch[key]}`);
      const { rows } = await client.query<{ t: string }>(
        `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`, [source]);
      for (const { t } of rows) await client.query(`CREATE TABLE ${scratch[key]}.${t} AS SELECT * FROM ${source}.${t} WITH NO DATA`);
    }
    const dead: string[] = [];
    for (const inv of INVARIANTS) {
      await client.query('BEGIN');
      try {
        const clean = await client.query(inv.sql(scratch));
        for (const statement of inv.violate(scratch)) await client.query(statement);
        const seen = await client.query(inv.sql(scratch));
        if (clean.rows.length !== 0 || seen.rows.length === 0) dead.push(inv.name);
      } finally {
        await client.query('ROLLBACK');
      }
    }
    return dead;
  } finally {
    for (const s of Object.values(scratch)) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch(() => undefined);
    client.release();
  }
}
