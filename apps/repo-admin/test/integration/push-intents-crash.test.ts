import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload } from '@glp/events';
import { createLogger } from '@glp/service-kit';
import { dropSchemas, eventually, infraFromEnv, uniqueName } from '@glp/testing';
import { hashedDiskPath } from '../../src/domain/hashed-storage';
import { migrateRepoAdmin } from '../../src/migrations';
import { startGrantingProxy } from './git-grants';
import { alice, gitEnv, localGit as git, PUSH_SECRET, run, seedAndClone, sleep, startPushListener } from './push-fixture';

/**
 * repo-admin dies after git moved a push's refs and before post-receive handed its events off: the push stands, and
 * the next start of repo-admin on the same storage emits its Push and RepositoryChanged, once.
 */
describe('push events across a crash of repo-admin', () => {
  const schema = uniqueName('it_push_intents');
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-push-intents-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-push-intents-work-'));
  const intentsDir = path.join(root, '@push-intents');
  const logger = createLogger('push-intents-test', 'silent');
  let pool: Pool;
  let server: Awaited<ReturnType<typeof startPushListener>> | undefined;
  let proxy: Awaited<ReturnType<typeof startGrantingProxy>>;
  let proxyUrl = '';
  const startServer = async () => {
    server = await startPushListener(pool, root, logger);
  };
  const eventsOf = async (type: typeof EventTypes.Push | typeof EventTypes.TagPush, sha: string) => {
    const { rows } = await pool.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE event_type = $1 ORDER BY id', [type.typeName]);
    return rows.map((r) => unpackPayload(decodeEnvelope(r.payload), type)).filter((p) => p.after === sha);
  };
  const changes = async () => (await pool.query('SELECT 1 FROM outbox WHERE event_type = $1', [EventTypes.RepositoryChanged.typeName])).rowCount!;
  const intents = () => (existsSync(intentsDir) ? readdirSync(intentsDir) : []);
  /** What a SIGKILL of repo-admin right after git moved the refs amounts to: post-receive's call never lands. */
  const killBeforePostReceive = () => writeFileSync(path.join(path.dirname(server!.hookSocket), 'post-receive'), '#!/bin/sh\ncat >/dev/null\n', { mode: 0o700 });

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateRepoAdmin(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    await startServer();
    // The gateway's part: grant each request for the current server.
    proxy = await startGrantingProxy(PUSH_SECRET, alice, () => server!.port);
    proxyUrl = proxy.url;

    await seedAndClone(root, proxyUrl, path.join(work, 'clone'));
  });
  afterAll(async () => {
    proxy?.close();
    await server?.stop(1000);
    await pool?.end();
    await dropSchemas(schema);
    rmSync(root, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('emits the Push, TagPush and RepositoryChanged of a push whose post-receive never ran, once, at the next start', async () => {
    const dir = path.join(work, 'clone');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'before the crash');
    const sha = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'tag', 'v1.0');
    const changedBefore = await changes();

    killBeforePostReceive();
    await run('git', ['-C', dir, 'push', '-q', 'origin', 'main', 'v1.0'], { env: gitEnv });
    const bare = path.join(root, hashedDiskPath(1));
    expect(git(bare, 'rev-parse', 'main')).toBe(sha);
    expect(git(bare, 'rev-parse', 'v1.0^{commit}')).toBe(sha);
    await sleep(500);
    expect(await eventsOf(EventTypes.Push, sha)).toHaveLength(0);
    await server!.stop(1000);
    server = undefined;

    await startServer();
    await eventually(async () => (await eventsOf(EventTypes.Push, sha)).length === 1, 20_000);
    expect((await eventsOf(EventTypes.Push, sha))[0]).toMatchObject({
      projectId: 1, ref: 'refs/heads/main', checkoutSha: sha, totalCommitsCount: 1, commits: [{ id: sha, title: 'before the crash' }],
      pusher: { userId: 7, username: 'alice' },
    });
    expect(await eventsOf(EventTypes.TagPush, sha)).toEqual([expect.objectContaining({ ref: 'refs/tags/v1.0', checkoutSha: sha })]);
    expect(await changes()).toBe(changedBefore + 1);
    expect(intents()).toEqual([]);

    // Another restart finds nothing left to do: the events stay once.
    await server!.stop(1000);
    server = undefined;
    await startServer();
    await sleep(1000);
    expect(await eventsOf(EventTypes.Push, sha)).toHaveLength(1);
    expect(await eventsOf(EventTypes.TagPush, sha)).toHaveLength(1);
    expect(await changes()).toBe(changedBefore + 1);
  });

  it('leaves no intent and no event for a refused push', async () => {
    const dir = path.join(work, 'clone');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'refused');
    const sha = git(dir, 'rev-parse', 'HEAD');
    const changedBefore = await changes();

    await expect(run('git', ['-C', dir, 'push', '-q', 'origin', 'HEAD:refs/foo/x'], { env: gitEnv })).rejects.toMatchObject({
      stderr: expect.stringContaining('You cannot push to a ref outside refs/heads/ and refs/tags/.'),
    });
    expect(intents()).toEqual([]);
    await server!.stop(1000);
    server = undefined;
    await startServer();
    await sleep(1000);
    expect(await eventsOf(EventTypes.Push, sha)).toHaveLength(0);
    expect(await changes()).toBe(changedBefore);
  });

  it('removes the intent of a push whose post-receive handed its events off', async () => {
    const dir = path.join(work, 'clone');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'normal push');
    const normal = git(dir, 'rev-parse', 'HEAD');
    await run('git', ['-C', dir, 'push', '-q', 'origin', 'HEAD:main'], { env: gitEnv });
    expect(await eventsOf(EventTypes.Push, normal)).toHaveLength(1);
    expect(intents()).toEqual([]);
  });
});
