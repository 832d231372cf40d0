/**
 * Latency of identity's GetUserGroupAccess, the call other services make per request to learn a user's effective
 * access to groups (issue: "fast enough to call per request"). Boots a stack, seeds with SQL bulk inserts
 * (generate_series) a user who is a member of BENCH_GROUPS top-level groups (default 50), each with 3 subgroups,
 * among BENCH_OTHER_GROUPS unrelated groups (default 5,000) with 4 members each, then calls identity over gRPC:
 *
 *   npm run bench:group-access          BENCH_ACCESS_CALLS=10000 BENCH_GROUPS=50 BENCH_OTHER_GROUPS=5000
 *
 * Phases, each after 200 warm-up calls, one call at a time: (1) one group asked (a subgroup: access inherited from
 * its parent), (2) every group the user has access to (BENCH_GROUPS x 4 rows). Prints p50/p90/p99/max.
 */
import { Client } from 'pg';
import { identityV1 } from '@glp/proto';
import { createGrpcClient, DEV_ACTOR_SECRET, systemActor } from '@glp/service-kit';
import { benchInfra, latencySummary } from './bench-kit';
import { startStack } from '../stack';

function stats(samples: number[]): string {
  return `${latencySummary(samples, 3)}  max ${Math.max(...samples).toFixed(3)} ms`;
}

async function main(): Promise<void> {
  const calls = Number(process.env.BENCH_ACCESS_CALLS ?? 10000);
  const groups = Number(process.env.BENCH_GROUPS ?? 50);
  const others = Number(process.env.BENCH_OTHER_GROUPS ?? 5000);
  const infra = await benchInfra();
  const stack = await startStack({ name: 'bench_access' });
  const db = new Client({ connectionString: infra.databaseUrl });
  await db.connect();
  try {
    const created = await fetch(`${stack.apiUrl}/users`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'bench-member', name: 'Bench Member', email: 'bench-member@example.com', password: 'bench-password-1' }),
    });
    if (created.status !== 201) throw new Error(`user create: ${created.status} ${await created.text()}`);
    const { id: userId } = (await created.json()) as { id: number };
    const t0 = Date.now();
    await db.query(`SET search_path TO ${stack.schemas.identity}`);
    await db.query('BEGIN');
    // Other users and groups, so the tables are not trivially small.
    await db.query(`INSERT INTO users (username, name, email) SELECT 'u' || g, 'U ' || g, 'u' || g || '@example.com' FROM generate_series(1, 2000) g`);
    await db.query(
      `INSERT INTO namespaces (name, path, kind, full_path, full_name, visibility)
       SELECT 'other ' || g, 'other-' || g, 'group', 'other-' || g, 'other ' || g, 'private' FROM generate_series(1, $1::int) g`,
      [others],
    );
    await db.query(`UPDATE namespaces SET traversal_ids = ARRAY[id] WHERE traversal_ids = '{}'`);
    await db.query(
      `INSERT INTO group_members (group_id, user_id, access_level)
       SELECT n.id, u.id, 30 FROM namespaces n CROSS JOIN LATERAL (SELECT id FROM users WHERE username LIKE 'u%' ORDER BY random() LIMIT 4) u
       WHERE n.path LIKE 'other-%' ON CONFLICT DO NOTHING`,
    );
    // The bench user's groups: BENCH_GROUPS top-level groups with 3 subgroups each.
    await db.query(
      `INSERT INTO namespaces (name, path, kind, full_path, full_name, visibility)
       SELECT 'mine ' || g, 'mine-' || g, 'group', 'mine-' || g, 'mine ' || g, 'private' FROM generate_series(1, $1::int) g`,
      [groups],
    );
    await db.query(`UPDATE namespaces SET traversal_ids = ARRAY[id] WHERE traversal_ids = '{}'`);
    await db.query(
      `INSERT INTO namespaces (name, path, kind, parent_id, full_path, full_name, visibility, traversal_ids)
       SELECT 'sub ' || s, 'sub-' || s, 'group', p.id, p.full_path || '/sub-' || s, p.full_name || ' / sub ' || s, 'private', p.traversal_ids
       FROM namespaces p CROSS JOIN generate_series(1, 3) s WHERE p.path LIKE 'mine-%'`,
    );
    await db.query(`UPDATE namespaces SET traversal_ids = traversal_ids || id WHERE parent_id IS NOT NULL AND NOT (id = ANY(traversal_ids))`);
    await db.query(
      `INSERT INTO group_members (group_id, user_id, access_level) SELECT id, $1, 10 + 10 * (id % 4) FROM namespaces WHERE path LIKE 'mine-%'`,
      [userId],
    );
    await db.query('COMMIT');
    await db.query('ANALYZE namespaces; ANALYZE group_members; ANALYZE users');
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM namespaces WHERE path LIKE 'sub-%' ORDER BY id`);
    const subgroupIds = rows.map((r) => Number(r.id));
    console.log(`seeded in ${Date.now() - t0} ms: user ${userId} in ${groups} groups (+${subgroupIds.length} subgroups), ${others} other groups`);

    const client = createGrpcClient(identityV1.IdentityServiceClient, stack.grpcAddrs.identity, { actorSecret: DEV_ACTOR_SECRET });
    const actor = systemActor('bench');
    const one = async (i: number) => {
      const res = await client.getUserGroupAccess({ userId, groupIds: [subgroupIds[i % subgroupIds.length]!] }, { actor });
      if (res.groups.length !== 1) throw new Error(`expected access to subgroup, got ${JSON.stringify(res.groups)}`);
    };
    const all = async () => {
      const res = await client.getUserGroupAccess({ userId, groupIds: [] }, { actor });
      if (res.groups.length !== groups * 4) throw new Error(`expected ${groups * 4} groups, got ${res.groups.length}`);
    };
    for (const [name, fn] of [['one group (a subgroup, inherited)', one], [`every accessible group (${groups * 4})`, all]] as const) {
      for (let i = 0; i < 200; i++) await fn(i);
      const samples: number[] = [];
      const started = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) {
        const s = process.hrtime.bigint();
        await fn(i);
        samples.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      console.log(`GetUserGroupAccess, ${name}, ${calls} sequential calls over gRPC: ${stats(samples)}  (${(calls / seconds).toFixed(0)} calls/s)`);
    }
    client.close();
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
