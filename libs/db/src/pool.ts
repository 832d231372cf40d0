import { Pool, types, type PoolConfig } from 'pg';
import { countQueries } from './query-counter';
import { fastTimestamptz } from './timestamptz';

// int8 (bigint ids, counts) as JS numbers: ids stay far below 2^53.
types.setTypeParser(20, (v) => Number.parseInt(v, 10));
// timestamptz: the ISO shape by character positions, anything else by node-pg's own parser (timestamptz.ts).
const defaultTimestamptz = types.getTypeParser(types.builtins.TIMESTAMPTZ, 'text');
types.setTypeParser(types.builtins.TIMESTAMPTZ, (v) => fastTimestamptz(v) ?? defaultTimestamptz(v));

export interface PoolOptions {
  url: string;
  /** The service's own schema; becomes the connection's search_path. */
  schema: string;
  /** Upper bound on connections from this process. */
  max?: number;
  applicationName?: string;
  statementTimeoutMs?: number;
  /** TCP keepalive: first probe after this much idle, so a dead peer is noticed on idle connections (default 10000 ms). */
  keepAliveInitialDelayMs?: number;
  /**
   * Every statement on these connections runs PostgreSQL's generic plan (`plan_cache_mode = force_generic_plan`),
   * planned once per prepared statement instead of for each execution's values: only for statements whose best plan
   * no value changes.
   */
  genericPlans?: boolean;
}

export function assertIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid SQL identifier: ${name}`);
  return name;
}

/**
 * A pool whose connections see only the service's schema (search_path), so
 * store code writes unqualified table names and never reaches another schema.
 */
export function createPool(opts: PoolOptions): Pool {
  const schema = assertIdentifier(opts.schema);
  const config: PoolConfig = {
    connectionString: opts.url,
    max: opts.max ?? 10,
    idleTimeoutMillis: 30000,
    connectionTimeoutMillis: 10000,
    keepAlive: true,
    keepAliveInitialDelayMillis: opts.keepAliveInitialDelayMs ?? 10000,
    application_name: opts.applicationName ?? schema,
    options: `-c search_path=${schema} -c statement_timeout=${opts.statementTimeoutMs ?? 30000}${opts.genericPlans ? ' -c plan_cache_mode=force_generic_plan' : ''}`,
  };
  const pool = new Pool(config);
  // An idle client that loses its connection emits 'error' on the pool; without a listener it would crash the process.
  pool.on('error', () => undefined);
  // A checked-out client has no pool listener: one whose server goes away between two queries of a transaction
  // (PostgreSQL restarted) would crash the process the same way. Its next query fails instead, and the pool drops it
  // on release (fault-postgres-restart.test.ts).
  // Each connection counts its queries per request (glp_request_sql_queries_total, query-counter.ts).
  pool.on('connect', (client) => countQueries(client).on('error', () => undefined));
  return pool;
}
