import type { ClientBase } from 'pg';
import { countRequestSqlQuery } from '@glp/service-kit';

const COUNTED = Symbol('glp.queryCounted');

/**
 * Counts every query sent on this client in `glp_request_sql_queries_total` (only while a request context is active:
 * background work is not counted). createPool applies it to each connection it opens, which covers `pool.query` too
 * (the pool runs it on one of its clients); one map lookup and one increment per query.
 */
export function countQueries<C extends ClientBase>(client: C): C {
  const target = client as C & { [COUNTED]?: true };
  if (target[COUNTED]) return client;
  const query = client.query as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = function countedQuery(this: unknown, ...args: unknown[]) {
    countRequestSqlQuery();
    return query.apply(this, args);
  };
  target[COUNTED] = true;
  return client;
}
