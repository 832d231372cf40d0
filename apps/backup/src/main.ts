import path from 'node:path';
import { createLogger, runMain } from '@glp/service-kit';
import { createBackup } from './app/create-backup';
import { restoreBackup, RestoreRefused } from './app/restore-backup';
import { repoAdminBackupClient } from './clients/repo-admin';
import { loadBackupConfig } from './config';

const USAGE = 'usage: backup create | backup restore <backup directory> [--force]';

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const config = loadBackupConfig();
  const logger = createLogger('backup', config.LOG_LEVEL);
  const repoAdmin = repoAdminBackupClient(config.REPO_ADMIN_GRPC_ADDR, config.ACTOR_SECRET);
  const common = { databaseUrl: config.DATABASE_URL, schemas: config.schemas, repoAdmin, concurrency: config.BACKUP_CONCURRENCY, pgBinDir: config.PG_BIN_DIR, logger };
  try {
    if (command === 'create') {
      const { dir, manifest } = await createBackup({ ...common, backupDir: config.BACKUP_DIR });
      process.stdout.write(`${JSON.stringify({ backup: dir, ...manifest.totals, durationsMs: manifest.durationsMs })}\n`);
    } else if (command === 'restore') {
      const dir = rest.find((a) => !a.startsWith('--'));
      const unknown = rest.filter((a) => a.startsWith('--') && a !== '--force');
      if (!dir || unknown.length) throw new RestoreRefused(USAGE);
      const summary = await restoreBackup({ ...common, dir: path.resolve(dir), force: rest.includes('--force'), topicPrefix: config.KAFKA_TOPIC_PREFIX });
      process.stdout.write(`${JSON.stringify(summary)}\nrestored: restart every service of the stack before it takes traffic (caches)\n`);
    } else {
      throw new RestoreRefused(USAGE);
    }
  } catch (err) {
    if (!(err instanceof RestoreRefused)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 2;
  } finally {
    repoAdmin.close();
  }
}

runMain('backup', main);
