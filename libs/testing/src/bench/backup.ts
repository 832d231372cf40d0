/**
 * `npm run backup` and `npm run restore` at scale: BENCH_BACKUP_PROJECTS (1,000; the figure is 10,000) projects,
 * each with a small repository (GitLab's README commit, `initialize_with_readme`), created through the API; then the
 * backup CLI against that stack (size, time) and a restore into a second, empty stack (time), as a table.
 *
 *   npm run bench:backup                          boots its own two stacks from the built dist/ (needs infra: deploy/local/infra.sh up)
 *   BENCH_BACKUP_PROJECTS=10000 BENCH_BACKUP_CONCURRENCY=16 npm run bench:backup
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { benchInfra } from './bench-kit';
import { REPO_ROOT } from '../infra';
import { startStack, type RunningStack } from '../stack';

const run = promisify(execFile);
const PROJECTS = Number(process.env.BENCH_BACKUP_PROJECTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_BACKUP_CONCURRENCY ?? 16);

const schemaSpec = (s: RunningStack) =>
  `identity=${s.schemas.identity},projects=${s.schemas.projects},access-requests=${s.schemas.accessRequests},repo-admin=${s.schemas.repoAdmin},` +
  `hooks=${s.schemas.hooks},webhook-dispatcher=${s.schemas.webhookDispatcher},push-rules=${s.schemas.pushRules}`;

async function cli(args: string[], target: RunningStack, databaseUrl: string, backupDir: string): Promise<{ ms: number; out: string }> {
  const started = Date.now();
  const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, 'apps/backup/dist/main.js'), ...args], {
    env: {
      ...process.env, DATABASE_URL: databaseUrl, BACKUP_SCHEMAS: schemaSpec(target), REPO_ADMIN_GRPC_ADDR: target.grpcAddrs.repoAdmin, KAFKA_TOPIC_PREFIX: target.topicPrefix, BACKUP_DIR: backupDir,
      BACKUP_CONCURRENCY: String(CONCURRENCY), LOG_LEVEL: 'warn',
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { ms: Date.now() - started, out: stdout };
}

async function main(): Promise<void> {
  const infra = await benchInfra();
  const databaseUrl = infra.databaseUrl;
  const pool = new Pool({ connectionString: databaseUrl, max: 2 });
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-bench-backup-'));
  const env = { LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'warn' };
  const source = await startStack({ name: 'bench_backup_src', env, readyTimeoutMs: 120_000 });
  let target: RunningStack | undefined;
  try {
    const seedStarted = Date.now();
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < PROJECTS) {
        const n = next++;
        const res = await fetch(`${source.apiUrl}/projects`, {
          method: 'POST', headers: { 'PRIVATE-TOKEN': source.rootToken, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `bench-${n}`, initialize_with_readme: true }),
        });
        if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
      }
    }));
    // Every repository created by its job (a record each), so the backup copies all of them.
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${source.schemas.repoAdmin}.repositories`);
      if (rows[0]!.n >= PROJECTS) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const seedMs = Date.now() - seedStarted;

    const backup = await cli(['create'], source, databaseUrl, path.join(work, 'backups'));
    const summary = JSON.parse(backup.out.split('\n')[0]!) as { backup: string; bytes: number; files: number; repositories: number; durationsMs: Record<string, number> };
    target = await startStack({ name: 'bench_backup_dst', env, readyTimeoutMs: 120_000 });
    const restore = await cli(['restore', summary.backup], target, databaseUrl, path.join(work, 'backups'));
    const restored = JSON.parse(restore.out.split('\n')[0]!) as { durationsMs: Record<string, number> };

    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(`\nbackup and restore of ${PROJECTS} projects with small repositories (concurrency ${CONCURRENCY})\n`);
    console.log('| what | figure |\n|---|---|');
    console.log(`| seeding (API + repository jobs) | ${s(seedMs)} |`);
    console.log(`| backup size | ${(summary.bytes / 1e6).toFixed(1)} MB in ${summary.files} files (${summary.repositories} repositories) |`);
    console.log(`| backup time (CLI process) | ${s(backup.ms)} (database ${s(summary.durationsMs.database!)}, repositories ${s(summary.durationsMs.repositories!)}, files ${s(summary.durationsMs.storedFiles!)}) |`);
    console.log(`| restore time (CLI process) | ${s(restore.ms)} (verify ${s(restored.durationsMs.verify!)}, database ${s(restored.durationsMs.database!)}, migrations ${s(restored.durationsMs.migrations!)}, repositories ${s(restored.durationsMs.repositories!)}) |`);
  } finally {
    await Promise.all([source.stop(), target?.stop()]);
    await pool.end();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
