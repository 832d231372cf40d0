import { Counter } from 'prom-client';
import { currentContext } from './context';
import { registry } from './metrics';

/** Label of work done inside a request context that names no operation (e.g. the gateway's token lookup before routing). */
export const UNNAMED_OPERATION = 'unrouted';

/**
 * What one request costs in round trips, counted only while a request context is active (a gRPC handler, an HTTP
 * route): SQL queries (libs/db's pool) and outgoing gRPC calls (createGrpcClient). Background work (outbox relays,
 * consumers, job workers) runs outside any context and is not counted. `method` is the context's operation: the gRPC
 * method path in a service, `VERB /route` in the gateway. Tests read these before and after a request to assert that
 * what an endpoint costs does not grow with its page size (apps/gateway/test/e2e/request-cost.test.ts).
 */
export const requestSqlQueries = new Counter({
  name: 'glp_request_sql_queries_total',
  help: 'SQL queries run while serving a request, by the operation served',
  labelNames: ['method'],
  registers: [registry],
});

export const requestGrpcCalls = new Counter({
  name: 'glp_request_grpc_calls_total',
  help: 'Outgoing gRPC calls made while serving a request, by the operation served',
  labelNames: ['method'],
  registers: [registry],
});

type Child = ReturnType<Counter<'method'>['labels']>;
const sqlChildren = new Map<string, Child>();
const grpcChildren = new Map<string, Child>();

function countIn(counter: Counter<'method'>, children: Map<string, Child>): void {
  const ctx = currentContext();
  if (!ctx) return;
  const method = ctx.operation ?? UNNAMED_OPERATION;
  let child = children.get(method);
  if (!child) {
    child = counter.labels(method);
    children.set(method, child);
  }
  child.inc();
}

/** One SQL query sent: counted when a request context is active. */
export function countRequestSqlQuery(): void {
  countIn(requestSqlQueries, sqlChildren);
}

/** One outgoing gRPC call: counted when a request context is active. */
export function countRequestGrpcCall(): void {
  countIn(requestGrpcCalls, grpcChildren);
}
