export * from './migrate';
export * from './pool';
export * from './query-counter';
export * from './transaction';
export type { Pool, PoolClient, QueryConfig } from 'pg';
