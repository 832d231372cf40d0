import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { infraFromEnv } from './infra';

/** A fresh lowercase identifier for a schema / topic prefix / consumer group, unique per test file. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`.toLowerCase();
}

/** Drops schemas created by a test (cascade), using a short-lived admin pool. */
export async function dropSchemas(...schemas: string[]): Promise<void> {
  const pool = new Pool({ connectionString: infraFromEnv().databaseUrl, max: 1 });
  try {
    for (const s of schemas) {
      if (!/^[a-z_][a-z0-9_]*$/.test(s)) throw new Error(`invalid schema ${s}`);
      await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    }
  } finally {
    await pool.end();
  }
}

/** Polls until fn returns a truthy value or the timeout elapses. */
export async function eventually<T>(fn: () => Promise<T | undefined | false | null>, timeoutMs = 15000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
