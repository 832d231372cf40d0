import path from 'node:path';
import { createPool, runMigrations, withTransaction } from '@glp/db';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';

const sets = [{ dir: path.resolve(__dirname, '../fixtures/migrations'), table: 'pgmigrations' }];

describe('runMigrations', () => {
  const a = uniqueName('it_db_a');
  const b = uniqueName('it_db_b');
  afterAll(() => dropSchemas(a, b));

  it('migrates two services\' schemas at the same time, and replicas of one service once', async () => {
    const url = infraFromEnv().databaseUrl;
    const results = await Promise.all([
      runMigrations({ url, schema: a, sets }),
      runMigrations({ url, schema: b, sets }),
      runMigrations({ url, schema: a, sets }),
    ]);
    // schema a: exactly one of its two runners applied the migration
    expect([results[0], results[2]].map((r) => r.length).sort()).toEqual([0, 1]);
    expect(results[1]).toEqual(['0001_widgets']);
    expect(await runMigrations({ url, schema: a, sets })).toEqual([]);
  });

  it('scopes a pool to its schema and rolls back a failed transaction', async () => {
    const pool = createPool({ url: infraFromEnv().databaseUrl, schema: a, max: 2 });
    try {
      await expect(
        withTransaction(pool, async (c) => {
          await c.query("INSERT INTO widgets (name) VALUES ('half-written')");
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await withTransaction(pool, (c) => c.query("INSERT INTO widgets (name) VALUES ('kept')"));
      const { rows } = await pool.query('SELECT name FROM widgets');
      expect(rows).toEqual([{ name: 'kept' }]);
    } finally {
      await pool.end();
    }
  });
});
