import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { provideInfra } from '../infra';
import { SUITE_LOG_DIR_ENV } from '../secret-registry';

/** Jest globalSetup for integration and e2e projects: exports the infra URLs to every test worker. */
export default async function globalSetup(): Promise<void> {
  const urls = await provideInfra();
  process.env.DATABASE_URL = urls.databaseUrl;
  process.env.REDIS_URL = urls.redisUrl;
  process.env.KAFKA_BROKERS = urls.kafkaBrokers.join(',');
  // Stack logs and the secrets registry of this run, searched by the global teardown (secret-registry.ts).
  if (!process.env[SUITE_LOG_DIR_ENV]) {
    process.env[SUITE_LOG_DIR_ENV] = mkdtempSync(path.join(os.tmpdir(), 'glp-suite-logs-'));
    process.env.GLP_SUITE_LOG_DIR_CREATED = '1'; // the teardown removes it after a clean check
  }
}
