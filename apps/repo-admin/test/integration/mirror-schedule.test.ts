import { createPool, withTransaction, type Pool } from '@glp/db';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { migrateRepoAdmin } from '../../src/migrations';
import { pendingJobs } from '../../src/store/jobs-store';
import { findMirror, markMirrorDone, markMirrorStarted, queueMirrorUpdate, setMirrorEnabled, takeDueMirrors } from '../../src/store/mirrors-store';

/** The pull-mirror schedule against PostgreSQL: due mirrors are taken once per interval, one queued update per project. */
describe('pull mirror schedule', () => {
  const schema = uniqueName('it_mirrors');
  let pool: Pool;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('takes an enabled, due mirror once, pushes it one interval ahead, and never a disabled one', async () => {
    await setMirrorEnabled(pool, 1, true);
    await setMirrorEnabled(pool, 2, true, 60_000);
    await setMirrorEnabled(pool, 3, false);
    const due = await withTransaction(pool, (c) => takeDueMirrors(c, 3_600_000, 10));
    expect(due).toEqual([1]);
    expect(await withTransaction(pool, (c) => takeDueMirrors(c, 3_600_000, 10))).toEqual([]);
  });

  it('queues at most one update per project, and records how updates went', async () => {
    await queueMirrorUpdate(pool, 1);
    await queueMirrorUpdate(pool, 1);
    expect(await pendingJobs(pool)).toBe(1);
    expect(await findMirror(pool, 1)).toMatchObject({ update_status: 'scheduled' });
    await markMirrorStarted(pool, 1);
    await markMirrorDone(pool, 1, { ok: false, error: 'Unable to access repository with the URL and credentials provided', nextInMs: 1000 });
    expect(await findMirror(pool, 1)).toMatchObject({ update_status: 'failed', last_error: 'Unable to access repository with the URL and credentials provided', last_successful_update_at: null });
    await markMirrorDone(pool, 1, { ok: true, error: null, nextInMs: 1000 });
    const done = await findMirror(pool, 1);
    expect(done).toMatchObject({ update_status: 'finished', last_error: null });
    expect(done!.last_successful_update_at).toBeInstanceOf(Date);
  });
});
