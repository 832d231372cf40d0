import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload } from '@glp/events';
import { createLogger } from '@glp/service-kit';
import { dropSchemas, eventually, infraFromEnv, TcpProxy, uniqueName } from '@glp/testing';
import { hashedDiskPath } from '../../src/domain/hashed-storage';
import { migrateRepoAdmin } from '../../src/migrations';
import { startGrantingProxy } from './git-grants';
import { alice, gitEnv, localGit as git, PUSH_SECRET, run, seedAndClone, sleep, startPushListener } from './push-fixture';

/**
 * A push whose refs moved while repo-admin's PostgreSQL was unreachable for a couple of seconds: the push succeeds and
 * its Push and RepositoryChanged reach the outbox once the database is back, also when repo-admin restarted meanwhile.
 */
describe('push events through a database blip', () => {
  const schema = uniqueName('it_push_blip');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-push-blip-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-push-blip-work-'));
  const logger = createLogger('push-blip-test', 'silent');
  let db: TcpProxy;
  /** repo-admin's pool, through the proxy. */
  let pool: Pool;
  /** The test's own view of the schema, never cut. */
  let direct: Pool;
  let server: Awaited<ReturnType<typeof startPushListener>> | undefined;
  let proxy: Awaited<ReturnType<typeof startGrantingProxy>>;
  let proxyUrl = '';
  const startServer = async () => {
    server = await startPushListener(pool, root, logger);
  };
  const pushesOf = async (sha: string) => {
    const { rows } = await direct.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE event_type = $1 ORDER BY id', [EventTypes.Push.typeName]);
    return rows.map((r) => unpackPayload(decodeEnvelope(r.payload), EventTypes.Push)).filter((p) => p.after === sha);
  };
  const changes = async () => (await direct.query('SELECT 1 FROM outbox WHERE event_type = $1', [EventTypes.RepositoryChanged.typeName])).rowCount;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    const target = new URL(databaseUrl);
    db = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    pool = createPool({ url: db.url(databaseUrl), schema, max: 4 });
    direct = createPool({ url: databaseUrl, schema, max: 2 });
    await startServer();
    // The gateway's part: grant each request for the current server.
    proxy = await startGrantingProxy(PUSH_SECRET, alice, () => server!.port);
    proxyUrl = proxy.url;

    await seedAndClone(root, proxyUrl, path.join(work, 'clone'));
  });
  afterAll(async () => {
    db?.restore();
    proxy?.close();
    await server?.stop(1000);
    await pool?.end().catch(() => undefined);
    await direct?.end();
    await db?.close();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('records the events of a push made while the database is unreachable, once it is back', async () => {
    const dir = path.join(work, 'clone');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'during the blip');
    const sha = git(dir, 'rev-parse', 'HEAD');
    const changedBefore = await changes();

    db.cut();
    const started = Date.now();
    await run('git', ['-C', dir, 'push', '-q', 'origin', 'main'], { env: gitEnv });
    const pushMs = Date.now() - started;
    expect(git(path.join(root, hashedDiskPath(1)), 'rev-parse', 'main')).toBe(sha);
    // The client is not held for the whole outage.
    expect(pushMs).toBeLessThan(10_000);
    await sleep(2000);
    expect(await pushesOf(sha)).toHaveLength(0);
    db.restore();

    await eventually(async () => (await pushesOf(sha)).length === 1, 20_000);
    expect((await pushesOf(sha))[0]).toMatchObject({ projectId: 1, ref: 'refs/heads/main', totalCommitsCount: 1, commits: [{ id: sha, title: 'during the blip' }] });
    expect(await changes()).toBe(changedBefore! + 1);
    expect(readdirSync(path.join(root, '@push-events'))).toEqual([]);
  });

  it('keeps them on disk across a restart of repo-admin while the database is still away, in push order', async () => {
    const dir = path.join(work, 'clone');
    db.cut();
    const shas: string[] = [];
    for (const m of ['first while away', 'second while away']) {
      git(dir, 'commit', '-q', '--allow-empty', '-m', m);
      shas.push(git(dir, 'rev-parse', 'HEAD'));
      await run('git', ['-C', dir, 'push', '-q', 'origin', 'main'], { env: gitEnv });
    }
    await server!.stop(1000);
    server = undefined;
    db.restore();
    await startServer();

    await eventually(async () => (await pushesOf(shas[1]!)).length === 1, 20_000);
    expect(await pushesOf(shas[0]!)).toHaveLength(1);
    // The first push's event before the second's.
    const { rows } = await direct.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE event_type = $1 ORDER BY id', [EventTypes.Push.typeName]);
    const order = rows.map((r) => unpackPayload(decodeEnvelope(r.payload), EventTypes.Push).after).filter((a) => shas.includes(a));
    expect(order).toEqual(shas);
  });
});
