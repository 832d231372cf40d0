// npm run backup under write load, npm run restore into a second, empty stack: the restored stack holds what the backup's
// snapshot held (API listings and refs through each gateway), the cross-service invariants hold, events neither replay in
// effect nor get lost, and the restored stack takes writes (a project, a push, a webhook delivered).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { createLogger, DEV_ACTOR_SECRET } from '@glp/service-kit';
import {
  eventually, expectJson, gitCli, infraFromEnv, permanentRemovalPath, REPO_ROOT, startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver,
} from '@glp/testing';
import { createBackup } from '../../../backup/src/app/create-backup';
import { repoAdminBackupClient } from '../../../backup/src/clients/repo-admin';
import type { Manifest } from '../../../backup/src/domain/manifest';
import { parseSchemaMap } from '../../../backup/src/domain/services';
import { brokenInvariants, settledOutboxes } from './fuzz/db-invariants';

const run = promisify(execFile);
const CLI = path.join(REPO_ROOT, 'apps/backup/dist/main.js');
const SERVICES = ['identity', 'projects', 'access-requests', 'repo-admin', 'hooks', 'webhook-dispatcher', 'push-rules', 'gateway'] as const;

const hashedPath = (id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
};
const schemaSpec = (s: RunningStack) =>
  `identity=${s.schemas.identity},projects=${s.schemas.projects},access-requests=${s.schemas.accessRequests},repo-admin=${s.schemas.repoAdmin},` +
  `hooks=${s.schemas.hooks},webhook-dispatcher=${s.schemas.webhookDispatcher},push-rules=${s.schemas.pushRules}`;

describe('backup and restore', () => {
  let a: RunningStack;
  let b: RunningStack;
  let pool: Pool;
  let receiver: WebhookReceiver;
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-backup-e2e-'));
  const { mustGit, git } = gitCli(work);
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const seeded: Record<string, { id: number; path_with_namespace: string }> = {};

  /** The API of `stack`, as `token` (the source's root by default: after the restore it is the restored stack's root too). */
  const api = (stack: RunningStack, p: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': init.token ?? a.rootToken, ...(typeof init.body === 'string' ? { 'Content-Type': 'application/json' } : {}), ...init.headers } });
  const post = (stack: RunningStack, p: string, body: unknown, token?: string) => api(stack, p, { method: 'POST', body: JSON.stringify(body), token });
  const remote = (stack: RunningStack, project: { path_with_namespace: string }, token = a.rootToken) =>
    `${stack.url.replace('://', `://oauth2:${token}@`)}/${project.path_with_namespace}.git`;
  const lsRemote = async (stack: RunningStack, project: { path_with_namespace: string }) => (await mustGit(work, 'ls-remote', remote(stack, project))).split('\n').filter(Boolean).sort();
  const cli = (args: string[], target: RunningStack, backupDir = path.join(work, 'backups')) =>
    run(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATABASE_URL: infraFromEnv().databaseUrl, BACKUP_SCHEMAS: schemaSpec(target), REPO_ADMIN_GRPC_ADDR: target.grpcAddrs.repoAdmin, KAFKA_TOPIC_PREFIX: target.topicPrefix, BACKUP_DIR: backupDir, LOG_LEVEL: 'warn' },
      maxBuffer: 16 * 1024 * 1024,
    }).then((r) => ({ code: 0, ...r }), (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));

  beforeAll(async () => {
    pool = new Pool({ connectionString: infraFromEnv().databaseUrl, max: 3 });
    receiver = await startWebhookReceiver();
    a = await startStack({ name: 'e2e_backup_src' });
    await expectJson(await api(a, '/application/settings', { method: 'PUT', body: JSON.stringify({ allow_local_requests_from_web_hooks_and_services: true }) }), 200);
    for (const name of ['alice', 'bob']) {
      const user = await expectJson(await post(a, '/users', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` }), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await post(a, `/users/${user.id}/personal_access_tokens`, { name: 'e2e', scopes: ['api'] }), 201)).token;
    }
    for (const [name, readme] of [['alpha', true], ['beta', false], ['gamma', true]] as const) {
      seeded[name] = await expectJson(await post(a, '/projects', { name, initialize_with_readme: readme, visibility: 'internal' }), 201);
    }
    const alpha = seeded.alpha!;
    // A pushed branch and tag.
    const clone = path.join(work, 'alpha');
    await eventually(async () => (await git(work, 'clone', '-q', remote(a, alpha), clone)).code === 0, 30_000, 200);
    writeFileSync(path.join(clone, 'hello.txt'), 'hello\n');
    await mustGit(clone, 'add', 'hello.txt');
    await mustGit(clone, '-c', 'user.name=Seed', '-c', 'user.email=seed@example.com', 'commit', '-qm', 'Add hello');
    await mustGit(clone, 'tag', 'v1.0');
    await expectJson(await post(a, `/projects/${alpha.id}/hooks`, { url: `${receiver.url}/alpha`, push_events: true, tag_push_events: false }), 201);
    await mustGit(clone, 'push', '-q', 'origin', 'HEAD:refs/heads/feature', 'v1.0');
    await receiver.waitFor('/alpha', 1, 30_000);
    seeded.fork = await expectJson(await post(a, `/projects/${alpha.id}/fork`, { path: 'alpha-fork', name: 'alpha fork' }), 201);
    const file = new FormData();
    file.append('file', new Blob(['notes']), 'notes.txt');
    await expectJson(await api(a, `/projects/${alpha.id}/uploads`, { method: 'POST', body: file }), 201);
    const avatar = new FormData();
    avatar.append('avatar', new Blob([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')], { type: 'image/png' }), 'logo.png');
    await expectJson(await api(a, `/projects/${alpha.id}`, { method: 'PUT', body: avatar }), 200);
    await expectJson(await post(a, `/projects/${alpha.id}/push_rule`, { max_file_size: 10, commit_message_regex: '.+' }), 201);
    await expectJson(await post(a, `/projects/${alpha.id}/members`, { user_id: ids.alice, access_level: 30 }), 201);
    await expectJson(await post(a, `/projects/${seeded.beta!.id}/access_requests`, {}, tokens.bob), 201);
    await expectJson(await post(a, `/projects/${alpha.id}/star`, {}), 201);
    await expectJson(await post(a, `/projects/${alpha.id}/star`, {}, tokens.alice), 201);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.close();
    await pool?.end();
    rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('backs up under write load and restores into an empty stack that then holds what the snapshot held', async () => {
    // An event published before the snapshot but not consumed by then: repo-admin is paused while delta is created, so
    // delta's ProjectCreated waits on Kafka and delta has no repository (nor job) in the snapshot.
    a.signal('repo-admin', 'SIGSTOP');
    const delta = await expectJson(await post(a, '/projects', { name: 'delta', initialize_with_readme: true }), 201);
    await eventually(async () => (await pool.query(`SELECT 1 FROM ${a.schemas.projects}.outbox WHERE published_at IS NULL`)).rowCount === 0, 30_000, 100);

    // Write load while the backup runs: projects created and starred (projects), and pushed to (repo-admin: those
    // wait while it is paused, then go on during the copies).
    const loadNames = new Set<string>();
    const toPush: any[] = [];
    let loading = true;
    const clone = path.join(work, 'alpha');
    const creating = (async () => {
      for (let n = 0; loading; n++) {
        const name = `load-${n}`;
        loadNames.add(name);
        const p = await expectJson(await post(a, '/projects', { name, initialize_with_readme: false }), 201);
        await post(a, `/projects/${p.id}/star`, {});
        toPush.push(p);
      }
    })();
    const pushing = (async () => {
      while (loading || toPush.length) {
        const p = toPush.shift();
        if (p) await git(clone, 'push', '-q', remote(a, p), 'HEAD:refs/heads/main');
        else await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await eventually(async () => loadNames.size >= 3, 30_000, 20);

    const gamma = seeded.gamma!;
    const backupDir = path.join(work, 'backups');
    const { dir, manifest } = await createBackup({
      databaseUrl: infraFromEnv().databaseUrl, schemas: parseSchemaMap(schemaSpec(a)), repoAdmin: repoAdminBackupClient(a.grpcAddrs.repoAdmin, process.env.ACTOR_SECRET || DEV_ACTOR_SECRET),
      backupDir, concurrency: 4, pgBinDir: '', logger: createLogger('backup-e2e', 'silent'),
      // After the snapshot, before the copies: gamma is removed for good (its record is in the snapshot, its repository is not on disk any more).
      afterSnapshot: async () => {
        a.signal('repo-admin', 'SIGCONT');
        await expectJson(await api(a, `/projects/${gamma.id}`, { method: 'DELETE' }), 202);
        await expectJson(await api(a, permanentRemovalPath(gamma), { method: 'DELETE' }), 202);
        await eventually(async () => !existsSync(path.join(a.storageRoot, hashedPath(gamma.id))), 30_000, 100);
      },
    });
    const duringBackup = loadNames.size;
    loading = false;
    await Promise.all([creating, pushing]);
    expect(duringBackup).toBeGreaterThan(3); // writes ran while the backup did
    await settledOutboxes(pool, a.schemas);

    // The manifest describes the backup: every file with its size and sha256, every schema's migrations.
    const onDisk: Manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(onDisk.totals).toEqual(manifest.totals);
    expect(onDisk.files.map((f) => f.path)).toContain('database.dump');
    for (const f of onDisk.files) expect(createHash('sha256').update(readFileSync(path.join(dir, f.path))).digest('hex')).toBe(f.sha256);
    expect(onDisk.schemas.projects.migrations.pgmigrations!.length).toBeGreaterThan(0);
    expect(onDisk.schemas.identity.migrations.events_pgmigrations).toContain('0003_outbox_retention');
    expect(onDisk.repositories.find((r) => r.projectId === gamma.id && !r.wiki)).toMatchObject({ exists: false });
    expect(onDisk.totals.missingRepositories).toBe(1);
    expect(onDisk.repositories.some((r) => r.projectId === delta.id)).toBe(false);
    expect(onDisk.storedFiles.filter((f) => f.projectId === seeded.alpha!.id).map((f) => f.uploader).sort()).toEqual(['AvatarUploader', 'FileUploader']);

    // Refusals change nothing: a stack that holds data (without --force), a backup whose bytes do not match.
    const busy = await cli(['restore', dir], a);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/the target is not empty .*--force/);
    const tampered = path.join(work, 'tampered');
    cpSync(dir, tampered, { recursive: true });
    const dump = readFileSync(path.join(tampered, 'database.dump'));
    dump[dump.length - 1] ^= 0xff;
    writeFileSync(path.join(tampered, 'database.dump'), dump);
    b = await startStack({ name: 'e2e_backup_dst' });
    const refused = await cli(['restore', tampered], b);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/does not match its manifest.*database\.dump: sha256/);

    const restored = await cli(['restore', dir], b);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout.split('\n')[0]!)).toMatchObject({ repositories: manifest.totals.repositories, storedFiles: 2 });
    // Caches of the empty stack (tokens, projects) go with a restart of every service.
    for (const s of SERVICES) {
      b.signal(s, 'SIGTERM');
      await b.restart(s);
    }
    await eventually(async () => (await fetch(`${b.url}/-/readiness`).catch(() => undefined))?.status === 200, 60_000, 200);

    // Listings: every project of the restored stack is the source's (gamma aside: removed after the snapshot); every
    // source project the restored one lacks was created by the load after the snapshot.
    const listing = async (stack: RunningStack) => {
      const all: any[] = [];
      for (let page = 1; ; page++) {
        const rows = await expectJson(await api(stack, `/projects?per_page=100&page=${page}&order_by=id&sort=asc`), 200);
        all.push(...rows);
        if (rows.length < 100) return new Map(all.map((p) => [p.id as number, p]));
      }
    };
    const [src, dst] = [await listing(a), await eventually(async () => listing(b), 30_000)];
    const comparable = (p: any) => ({
      id: p.id, path_with_namespace: p.path_with_namespace, name: p.name, visibility: p.visibility, default_branch: p.default_branch,
      forks_count: p.forks_count, star_count: p.star_count, forked_from_project: p.forked_from_project?.id, empty_repo: p.empty_repo,
    });
    // Load projects and delta changed after the snapshot (delta's repository is created after it): present, not equal.
    const loadPath = (p: any) => loadNames.has(p.path) || p.id === delta.id;
    for (const [id, p] of dst) {
      if (id === gamma.id) continue;
      expect(src.has(id)).toBe(true);
      if (!loadPath(p)) expect(comparable(p)).toEqual(comparable(src.get(id)));
    }
    for (const [id, p] of src) if (!dst.has(id)) expect(loadPath(p)).toBe(true);
    expect(dst.get(gamma.id)).toMatchObject({ path_with_namespace: gamma.path_with_namespace });
    for (const name of ['alpha', 'beta', 'fork']) expect(dst.has(seeded[name]!.id)).toBe(true);

    const alpha = seeded.alpha!;
    const listings = [
      `/projects/${alpha.id}/members`, `/projects/${alpha.id}/hooks`, `/projects/${alpha.id}/push_rule`, `/projects/${seeded.beta!.id}/access_requests`,
      `/projects/${alpha.id}/starrers`, `/projects/${alpha.id}/forks`, `/projects/${alpha.id}/uploads`, '/users?per_page=100',
    ];
    // The same answers, but for the stack's own address in URLs.
    const answer = async (stack: RunningStack, p: string) => JSON.parse(JSON.stringify(await expectJson(await api(stack, p), 200)).split(stack.url).join('<gitlab>'));
    for (const p of listings) expect({ p, body: await answer(b, p) }).toEqual({ p, body: await answer(a, p) });
    const avatarOf = async (stack: RunningStack) => Buffer.from(await (await api(stack, `/projects/${alpha.id}/avatar`)).arrayBuffer());
    expect((await avatarOf(b)).equals(await avatarOf(a))).toBe(true);

    // Not dropped: delta's ProjectCreated (and those of load projects created while repo-admin was paused), republished
    // from the restored outbox, are consumed by the restored repo-admin (once its consumer rejoined after the restart).
    const recordless = `SELECT p.id FROM ${b.schemas.projects}.projects p WHERE NOT EXISTS (SELECT 1 FROM ${b.schemas.repoAdmin}.repositories r WHERE r.project_id = p.id)`;
    await eventually(async () => (await pool.query(recordless)).rowCount === 0, 120_000, 250).catch((err: Error) => {
      throw new Error(`${err.message}\n${b.logs().split('\n').filter((l) => l.includes('repo-admin')).slice(-30).join('\n')}`);
    });

    // Refs through each gateway: equal for every project the backup holds (a load project may have been pushed to
    // between the snapshot and its copy: its refs may be newer than its records, never other).
    for (const [id, p] of dst) {
      if (id === gamma.id) continue;
      const dstRefs = await eventually(async () => (await git(work, 'ls-remote', remote(b, p))).code === 0 && lsRemote(b, p), 30_000, 200);
      if (!loadPath(p)) expect({ p: p.path, refs: dstRefs }).toEqual({ p: p.path, refs: await lsRemote(a, p) });
    }
    // Removed after the snapshot: restored empty, its record and its repository agree.
    expect(await lsRemote(b, gamma)).toEqual([]);

    // Invariants: every project has its repository record and repository on disk and vice versa; nothing of a project
    // that does not exist (the fuzz suite's list: members, stars, forks, hooks, push rules, access requests …).
    await settledOutboxes(pool, b.schemas);
    expect(await brokenInvariants(pool, b.schemas)).toEqual([]);
    expect((await lsRemote(b, delta)).some((l) => /\trefs\/heads\/\S+$/.test(l))).toBe(true);
    const { rows: records } = await pool.query<{ project_id: string; disk_path: string }>(`SELECT project_id, disk_path FROM ${b.schemas.repoAdmin}.repositories`);
    for (const r of records) expect({ r, onDisk: existsSync(path.join(b.storageRoot, r.disk_path)) }).toEqual({ r, onDisk: true });

    // Events: the push delivered before the backup is not delivered again by the restored stack (its event was
    // republished and skipped), and the delivery logs agree.
    const hook = (await expectJson(await api(b, `/projects/${alpha.id}/hooks`), 200))[0];
    expect((await expectJson(await api(b, `/projects/${alpha.id}/hooks/${hook.id}/events`), 200)).length)
      .toBe((await expectJson(await api(a, `/projects/${alpha.id}/hooks/${hook.id}/events`), 200)).length);
    await new Promise((r) => setTimeout(r, 3000));
    expect(receiver.at('/alpha')).toHaveLength(1);

    // The restored stack takes writes: a project, a push, a hook that is delivered.
    const fresh = await expectJson(await post(b, '/projects', { name: 'after-restore', initialize_with_readme: true }), 201);
    expect(fresh.id).toBeGreaterThan(Math.max(...dst.keys())); // the restored sequences go on from the snapshot
    await expectJson(await post(b, `/projects/${fresh.id}/hooks`, { url: `${receiver.url}/after`, push_events: true }), 201);
    await eventually(async () => (await git(clone, 'push', '-q', remote(b, fresh), 'HEAD:refs/heads/restored')).code === 0, 30_000, 200);
    const [delivery] = await receiver.waitFor('/after', 1, 30_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({ object_kind: 'push', ref: 'refs/heads/restored', project_id: fresh.id });
  }, 420_000);
});
