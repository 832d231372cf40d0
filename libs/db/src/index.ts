export * from './migrate';
export * from './pool';
export * from './transaction';
export type { Pool, PoolClient } from 'pg';
